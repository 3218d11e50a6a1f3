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
// (see bind/params.go). Define reads the tags once, at init, into the
// workload's Params (flags, help, validation, sweeps and result files
// use those), and gives the workload's functions the struct itself,
// decoded from the canonical Values: they read p.Threads, not
// v.Int("threads"). A tag that contradicts itself or its field's type
// panics at init, so every test and every start of contend finds it.

// Typed holds the functions of a workload that read its parameters, as
// functions of its parameter struct P. Define turns them into the
// Workload's functions of Values.
type Typed[P any] struct {
	// Check validates a complete configuration against itself and the
	// machine (see Workload.Check).
	Check func(p *P, m limits.Machine) (warnings []string, err error)
	// Run runs one repetition in the child: it sets the runtime fields
	// of p (ReportFD, SemKey) and makes one cgo call.
	Run func(p *P, rt Runtime) (Sample, error)
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

// Define completes w from its parameter struct P and the typed functions
// t: w.Params from P's tags, w's functions from t's. It panics when a tag
// is wrong (a programming error, found at init).
func Define[P any](w *Workload, t Typed[P]) *Workload {
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
	w.Params, w.bound = ps, b.typ
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
	return w
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

var (
	bytesType   = reflect.TypeFor[bind.Bytes]()
	nanosType   = reflect.TypeFor[bind.Nanos]()
	boolType    = reflect.TypeFor[bind.Bool]()
	cstringType = reflect.TypeFor[bind.CString]()
	enumType    = reflect.TypeFor[bind.Enum]()
)

// namedBounds are the names a min or max tag may use.
var namedBounds = map[string]int64{
	"MaxInt32":  math.MaxInt32,
	"MaxUint32": math.MaxUint32,
	"UserSpace": limits.UserSpace,
	"MaxStack":  MaxStack,
}

// newBinding reads the param tags of t's fields; it panics on a tag that
// is wrong.
func newBinding(t reflect.Type) *binding {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("workload: parameters of %s: not a struct", t))
	}
	b := &binding{typ: t}
	type ordered struct {
		p     Param
		field int
		at    int // 0: in field order
	}
	var os []ordered
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, ok := f.Tag.Lookup("param")
		if !ok {
			continue
		}
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
		case f.Type == bytesType:
			p.Kind = Size
		case f.Type == nanosType:
			p.Kind = Duration
		case f.Type == boolType:
			p.Kind = Bool
		case f.Type == cstringType:
			p.Kind = String
			if p.Default == "" {
				p.DefaultText = "required"
			}
		case f.Type.Implements(enumType):
			p.Kind = Enum
			for _, c := range reflect.Zero(f.Type).Interface().(bind.Enum).Choices() {
				if c.Value < lo || c.Value > hi {
					bad("choice %s = %d does not fit the field", c.Name, c.Value)
				}
				p.Choices = append(p.Choices, c.Name)
			}
		case isInt:
			p.Kind = Int
		default:
			bad("field type %s is not a parameter type", f.Type)
		}
		if p.Kind == Int || p.Kind == Size || p.Kind == Duration {
			p.Min, p.Max = max(lo, 0), hi
			for _, bd := range []struct {
				tag string
				to  *int64
			}{{"min", &p.Min}, {"max", &p.Max}} {
				if s, ok := f.Tag.Lookup(bd.tag); ok {
					x, err := parseBound(p.Kind, s)
					if err != nil {
						bad("%s: %v", bd.tag, err)
					}
					*bd.to = x
				}
			}
			if p.Min < max(lo, 0) || p.Max > hi || p.Min > p.Max {
				bad("bounds %d..%d do not fit %s (%d..%d)", p.Min, p.Max, f.Type, lo, hi)
			}
		}
		if p.Default != "" {
			if _, err := p.Parse(p.Default); err != nil {
				bad("default: %v", err)
			}
		}
		at := 0
		if s, ok := f.Tag.Lookup("order"); ok {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				bad("order %q is not a position", s)
			}
			at = n
		}
		if seen[name] {
			bad("a second field for --%s", name)
		}
		seen[name] = true
		os = append(os, ordered{p, i, at})
	}
	// Place the fields with an order tag where they say.
	var rest, placed []ordered
	for _, o := range os {
		if o.at == 0 {
			rest = append(rest, o)
		} else {
			placed = append(placed, o)
		}
	}
	for _, o := range placed {
		if o.at > len(rest)+1 {
			panic(fmt.Sprintf("workload: %s --%s: order %d, but %d parameters", t.Name(), o.p.Name, o.at, len(os)))
		}
		rest = append(rest[:o.at-1], append([]ordered{o}, rest[o.at-1:]...)...)
	}
	for _, o := range rest {
		b.params = append(b.params, o.p)
		b.fields = append(b.fields, o.field)
	}
	return b
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
// 1ms), 1<<N, or a name of namedBounds.
func parseBound(k Kind, s string) (int64, error) {
	if x, ok := namedBounds[s]; ok {
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
