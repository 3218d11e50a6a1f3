package workload

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"contend/bind"
	"contend/internal/limits"
)

// A workload's parameters are declared once: as the fields of its
// parameter struct in bind (bind.FaultmeParams), which is the C struct its
// run takes, with the flag name, usage, default, bounds and unit in tags
// (see bind/params.go). Workload.Funcs, a Typed[P], holds the workload's
// functions of that struct. When the workload is first looked up (Lookup,
// All, or a method that reads Params), its tags are read into Params
// (flags, help, validation, sweeps and result files use those) and its
// Funcs become the Workload's functions of Values, each decoding the
// canonical Values into the struct: they read p.Threads, not
// v.Int("threads"). A tag that contradicts itself or its field's type
// panics then, so the registry tests and every contend command that lists
// the workloads find it; a repetition child reads its own workload's tags
// only, and nothing at init (the literals stay static data).

// Typed holds the functions of a workload that read its parameters, as
// functions of its parameter struct P (Workload.Funcs). They become the
// Workload's functions of Values when it is first looked up.
type Typed[P any] struct {
	// Check validates a complete configuration against itself and the
	// machine (see Workload.Check).
	Check func(p *P, m limits.Machine) (warnings []string, err error)
	// Run runs one repetition in the child: it sets the runtime fields
	// of p (ReportFD, SemKey) and makes one cgo call.
	Run func(p *P, rt Runtime) (Sample, error)
	// Lean, when set, gives the repetition to a lean child (see
	// Workload.Lean): the bytes of p's C struct, and the function that
	// turns the C result's bytes into the Sample.
	Lean func(p *P) (params []byte, sample func(rc int, result []byte) (Sample, error))
	// SemSet, Original, Timeout, ForValues: see Workload.
	SemSet    func(p *P) int
	Original  func(p *P, s Sample, proc map[string]float64) []string
	Timeout   func(p *P) time.Duration
	ForValues func(p *P) (extra []Metric, primary string, err error)
	// Defaults are the machine-dependent defaults, by parameter name
	// (checked at init): what a parameter without a default tag gets.
	Defaults map[string]DynamicDefault
}

// DynamicDefault is a default computed when a configuration is resolved.
type DynamicDefault struct {
	Text string // for help: "online CPUs"
	Func func(v Values) string
}

// binder is a Typed[P] of some P: what Workload.Funcs holds.
type binder interface {
	paramType() reflect.Type
	define(w *Workload)
}

func (Typed[P]) paramType() reflect.Type { return reflect.TypeFor[P]() }

func (t Typed[P]) define(w *Workload) { define(w, t) }

// define sets w.Params from P's tags and w's functions from t's. It panics
// when a tag is wrong, which the registry tests (and every contend command
// that lists the workloads) find.
func define[P any](w *Workload, t Typed[P]) {
	b := bindingOf(reflect.TypeFor[P]())
	ps := make([]Param, len(b.params))
	copy(ps, b.params)
	for name, d := range t.Defaults {
		i := b.index(name)
		if i < 0 {
			panic(fmt.Sprintf("workload %s: a default for --%s, which %s has no field for", w.Name, name, b.typ))
		}
		ps[i].DefaultFunc, ps[i].DefaultText = d.Func, d.Text
	}
	for _, p := range ps {
		if p.Default == "" && p.DefaultFunc == nil && p.Kind != String {
			panic(fmt.Sprintf("workload %s: --%s has no default (tag default or Typed.Defaults)", w.Name, p.Name))
		}
	}
	w.Params = ps
	for _, name := range w.Positional {
		if b.index(name) < 0 {
			panic(fmt.Sprintf("workload %s: positional %q not a parameter", w.Name, name))
		}
	}
	dec := func(v Values) (*P, error) {
		var p P
		if err := b.decode(v, reflect.ValueOf(&p).Elem()); err != nil {
			return nil, fmt.Errorf("workload %s: %w", w.Name, err)
		}
		return &p, nil
	}
	// must decodes values that Resolve made, for the functions that
	// return no error: a failure is a caller's bug.
	must := func(v Values) *P {
		p, err := dec(v)
		if err != nil {
			panic(err.Error() + " (values not made by Resolve)")
		}
		return p
	}
	if f := t.Check; f != nil {
		w.Check = func(v Values, m limits.Machine) ([]string, error) {
			p, err := dec(v)
			if err != nil {
				return nil, err
			}
			return f(p, m)
		}
	}
	if f := t.Run; f != nil {
		w.Run = func(v Values, rt Runtime) (Sample, error) {
			p, err := dec(v)
			if err != nil {
				return Sample{}, err
			}
			return f(p, rt)
		}
	}
	if f := t.Lean; f != nil {
		w.Lean = func(v Values) ([]byte, func(int, []byte) (Sample, error), error) {
			p, err := dec(v)
			if err != nil {
				return nil, nil, err
			}
			params, sample := f(p)
			return params, sample, nil
		}
	}
	if f := t.ForValues; f != nil {
		w.ForValues = func(v Values) ([]Metric, string, error) {
			p, err := dec(v)
			if err != nil {
				return nil, "", err
			}
			return f(p)
		}
	}
	if f := t.SemSet; f != nil {
		w.SemSet = func(v Values) int { return f(must(v)) }
	}
	if f := t.Original; f != nil {
		w.Original = func(v Values, s Sample, proc map[string]float64) []string { return f(must(v), s, proc) }
	}
	if f := t.Timeout; f != nil {
		w.Timeout = func(v Values) time.Duration { return f(must(v)) }
	}
}

// Decode returns the parameter struct P of v, for tests and for functions
// given Values (Throughput); it fails when v was not made by Resolve of a
// workload whose parameters are P's.
func Decode[P any](v Values) (*P, error) {
	var p P
	if err := bindingOf(reflect.TypeFor[P]()).decode(v, reflect.ValueOf(&p).Elem()); err != nil {
		return nil, err
	}
	return &p, nil
}

// binding maps the parameters of a parameter struct to its fields.
type binding struct {
	typ    reflect.Type
	params []Param
	fields []int // params[i] is field fields[i]
}

var bindings sync.Map // reflect.Type -> *binding

func bindingOf(t reflect.Type) *binding {
	if b, ok := bindings.Load(t); ok {
		return b.(*binding)
	}
	b := newBinding(t)
	bindings.Store(t, b)
	return b
}

func (b *binding) index(name string) int {
	for i, p := range b.params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// namedBound returns the value of a name a min or max tag may use.
func namedBound(s string) (int64, bool) {
	switch s {
	case "MaxInt32":
		return math.MaxInt32, true
	case "MaxUint32":
		return math.MaxUint32, true
	case "UserSpace":
		return limits.UserSpace, true
	case "MaxStack":
		return MaxStack, true
	}
	return 0, false
}

// newBinding reads the param tags of t's fields; it panics on a tag that
// is wrong. It runs in every contend process's init (the repetition child
// too): it allocates once per parameter, no more.
func newBinding(t reflect.Type) *binding {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("workload: parameters of %s: not a struct", t))
	}
	n := 0
	for i := 0; i < t.NumField(); i++ {
		if _, ok := t.Field(i).Tag.Lookup("param"); ok {
			n++
		}
	}
	b := &binding{typ: t, params: make([]Param, 0, n), fields: make([]int, 0, n)}
	at := make([]int, 0, n) // the order tag of each parameter, 0 for none
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, ok := f.Tag.Lookup("param")
		if !ok {
			continue
		}
		p, order := readParam(t, f, name)
		if b.index(name) >= 0 {
			panic(fmt.Sprintf("workload: %s.%s: a second field for --%s", t.Name(), f.Name, name))
		}
		b.params = append(b.params, p)
		b.fields = append(b.fields, i)
		at = append(at, order)
	}
	// Move the parameters with an order tag where they say.
	for k := range at {
		if at[k] == 0 {
			continue
		}
		to := at[k] - 1
		if to >= n {
			panic(fmt.Sprintf("workload: %s --%s: order %d, but %d parameters", t.Name(), b.params[k].Name, at[k], n))
		}
		for j := k; j != to; {
			d := 1
			if to < j {
				d = -1
			}
			b.params[j], b.params[j+d] = b.params[j+d], b.params[j]
			b.fields[j], b.fields[j+d] = b.fields[j+d], b.fields[j]
			at[j], at[j+d] = at[j+d], at[j]
			j += d
		}
	}
	return b
}

// readParam reads the tags of field f of t, the parameter called name.
func readParam(t reflect.Type, f reflect.StructField, name string) (Param, int) {
	bad := func(format string, a ...any) {
		panic(fmt.Sprintf("workload: %s.%s (--%s): %s", t.Name(), f.Name, name, fmt.Sprintf(format, a...)))
	}
	p := Param{Name: name, Usage: f.Tag.Get("usage"), Default: f.Tag.Get("default"), Unit: f.Tag.Get("unit")}
	if name == "" || strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		bad("the name must be lower case letters, digits and dashes")
	}
	if p.Usage == "" {
		bad("no usage tag")
	}
	lo, hi, isInt := intRange(f.Type)
	switch {
	case f.Type == reflect.TypeFor[bind.Bytes]():
		p.Kind = Size
	case f.Type == reflect.TypeFor[bind.Nanos]():
		p.Kind = Duration
	case f.Type == reflect.TypeFor[bind.Bool]():
		p.Kind = Bool
	case f.Type == reflect.TypeFor[bind.CString]():
		p.Kind = String
		if p.Default == "" {
			p.DefaultText = "required"
		}
	case f.Type.Implements(reflect.TypeFor[bind.Enum]()):
		p.Kind = Enum
		cs := reflect.Zero(f.Type).Interface().(bind.Enum).Choices()
		p.Choices = make([]string, len(cs))
		for i, c := range cs {
			if c.Value < lo || c.Value > hi {
				bad("choice %s = %d does not fit the field", c.Name, c.Value)
			}
			p.Choices[i] = c.Name
		}
	case isInt:
		p.Kind = Int
	default:
		bad("field type %s is not a parameter type", f.Type)
	}
	if p.Kind == Int || p.Kind == Size || p.Kind == Duration {
		min, max := max(lo, 0), hi
		var err error
		if s, ok := f.Tag.Lookup("min"); ok {
			if min, err = parseBound(p.Kind, s); err != nil {
				bad("min: %v", err)
			}
		}
		if s, ok := f.Tag.Lookup("max"); ok {
			if max, err = parseBound(p.Kind, s); err != nil {
				bad("max: %v", err)
			}
		}
		if min < lo || min < 0 || max > hi || min > max {
			bad("bounds %d..%d do not fit %s (%d..%d)", min, max, f.Type, lo, hi)
		}
		p.Min, p.Max = min, max
	}
	if p.Default != "" {
		if _, err := p.Parse(p.Default); err != nil {
			bad("default: %v", err)
		}
	}
	order := 0
	if s, ok := f.Tag.Lookup("order"); ok {
		x, err := strconv.Atoi(s)
		if err != nil || x < 1 {
			bad("order %q is not a position", s)
		}
		order = x
	}
	return p, order
}

// intRange returns the values an integer type holds (capped to int64).
func intRange(t reflect.Type) (lo, hi int64, ok bool) {
	bits := uint(8 * t.Size())
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return -1 << (bits - 1), 1<<(bits-1) - 1, true
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return 0, 1<<bits - 1, true
	case reflect.Uint64:
		return 0, math.MaxInt64, true
	}
	return 0, 0, false
}

// parseBound reads a min or max tag: a value of the kind (4096, 16KiB,
// 1ms), 1<<N, or a name of namedBound.
func parseBound(k Kind, s string) (int64, error) {
	if x, ok := namedBound(s); ok {
		return x, nil
	}
	if a, n, ok := strings.Cut(s, "<<"); ok {
		x, err1 := strconv.ParseInt(a, 10, 64)
		sh, err2 := strconv.ParseUint(n, 10, 6)
		if err1 == nil && err2 == nil && x >= 0 && x <= math.MaxInt64>>sh {
			return x << sh, nil
		}
		return 0, fmt.Errorf("%q is not A<<N", s)
	}
	switch k {
	case Size:
		return ParseSize(s)
	case Duration:
		d, err := time.ParseDuration(s)
		return int64(d), err
	}
	return strconv.ParseInt(s, 10, 64)
}

// decode sets the parameter fields of dst from v, canonical values as
// Resolve makes them (a value out of range or not canonical is an error,
// never a truncation).
func (b *binding) decode(v Values, dst reflect.Value) error {
	for i, p := range b.params {
		text, ok := v[p.Name]
		if !ok {
			return fmt.Errorf("no value for --%s", p.Name)
		}
		bad := func() error { return fmt.Errorf("--%s: %q is not a canonical value (%s)", p.Name, text, p.Range()) }
		f := dst.Field(b.fields[i])
		switch p.Kind {
		case Int, Size, Duration:
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil || n < p.Min || n > p.Max {
				return bad()
			}
			setInt(f, n)
		case Bool:
			x, err := strconv.ParseBool(text)
			if err != nil {
				return bad()
			}
			f.Set(reflect.ValueOf(bind.BoolOf(x)))
		case String:
			if text == "" {
				return bad()
			}
			f.Set(reflect.ValueOf(bind.CStringOf(text)))
		case Enum:
			ok := false
			for _, c := range f.Interface().(bind.Enum).Choices() {
				if c.Name == text {
					setInt(f, c.Value)
					ok = true
				}
			}
			if !ok {
				return bad()
			}
		}
	}
	return nil
}

// setInt stores n, which the bounds checked at init make fit, in f.
func setInt(f reflect.Value, n int64) {
	if f.CanInt() {
		f.SetInt(n)
	} else {
		f.SetUint(uint64(n))
	}
}
