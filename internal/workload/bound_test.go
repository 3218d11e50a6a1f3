package workload

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"contend/bind"
)

// TestEveryWorkloadIsBound checks the registry: every workload's
// parameters come from a struct that bind checks against its C struct
// (bind.ParamStructs), every tagged field is a parameter and the other way
// round, and its quick configuration names only its parameters.
func TestEveryWorkloadIsBound(t *testing.T) {
	checked := map[reflect.Type]bool{}
	for _, p := range bind.ParamStructs() {
		checked[p[0]] = true
	}
	for _, w := range All() {
		if !checked[w.bound] {
			t.Errorf("%s: parameters from %v, which bind.ParamStructs does not check against C", w.Name, w.bound)
		}
		tagged := 0
		for i := 0; i < w.bound.NumField(); i++ {
			if name, ok := w.bound.Field(i).Tag.Lookup("param"); ok {
				tagged++
				if _, ok := w.Param(name); !ok {
					t.Errorf("%s: field %s (--%s) is not a parameter", w.Name, w.bound.Field(i).Name, name)
				}
			}
		}
		if tagged != len(w.Params) {
			t.Errorf("%s: %d parameters, %d tagged fields", w.Name, len(w.Params), tagged)
		}
		for i := 0; i < len(w.Quick); i += 2 {
			if _, ok := w.Param(strings.TrimPrefix(w.Quick[i], "--")); !ok || i+1 >= len(w.Quick) {
				t.Errorf("%s: quick configuration %q: %q is not a parameter flag with a value", w.Name, w.Quick, w.Quick[i])
			}
		}
	}
}

// TestDecodeRoundTrip resolves every workload's quick configuration and
// decodes it: each field holds the value its parameter resolved to.
func TestDecodeRoundTrip(t *testing.T) {
	for _, w := range All() {
		given := map[string]string{}
		for i := 0; i+1 < len(w.Quick); i += 2 {
			given[strings.TrimPrefix(w.Quick[i], "--")] = w.Quick[i+1]
		}
		if w.Quick == nil { // an outside file: the plugin's --so, wis's --test
			for _, p := range w.Params {
				if p.Kind == String {
					given[p.Name] = "./x"
				}
			}
		}
		v, err := w.Resolve(given)
		if err != nil {
			t.Fatalf("%s: %v", w.Name, err)
		}
		p := reflect.New(w.bound).Elem()
		b := bindingOf(w.bound)
		if err := b.decode(v, p); err != nil {
			t.Fatalf("%s: %v", w.Name, err)
		}
		for i, prm := range b.params {
			f := p.Field(b.fields[i])
			var got string
			switch prm.Kind {
			case Enum:
				for _, c := range f.Interface().(bind.Enum).Choices() {
					if f.Convert(reflect.TypeFor[int64]()).Int() == c.Value {
						got = c.Name
					}
				}
			case Bool:
				got = map[bool]string{true: "true", false: "false"}[f.Interface().(bind.Bool).True()]
			case String:
				got = f.Interface().(bind.CString).String()
			default:
				if f.CanInt() {
					got = strconv.FormatInt(f.Int(), 10)
				} else {
					got = strconv.FormatUint(f.Uint(), 10)
				}
			}
			if got != v[prm.Name] {
				t.Errorf("%s --%s: resolved %q, the field holds %q", w.Name, prm.Name, v[prm.Name], got)
			}
		}
		for _, prm := range b.params {
			bads := []Values{without(v, prm.Name), with(v, prm.Name, "")}
			if prm.Kind != String {
				bads = append(bads, with(v, prm.Name, "x"))
			}
			if prm.Kind == Int || prm.Kind == Size || prm.Kind == Duration {
				bads = append(bads, with(v, prm.Name, strconv.FormatInt(prm.Max, 10)+"0"), with(v, prm.Name, "1s"))
			}
			for _, bad := range bads {
				if err := b.decode(bad, reflect.New(w.bound).Elem()); err == nil || !strings.Contains(err.Error(), "--"+prm.Name) {
					t.Errorf("%s: decoding %v: %v, want an error naming --%s", w.Name, bad, err, prm.Name)
				}
			}
		}
	}
}

func without(v Values, name string) Values { c := v.Clone(); delete(c, name); return c }

func with(v Values, name, text string) Values { c := v.Clone(); c[name] = text; return c }

// TestBadTagsPanic checks that a parameter struct that contradicts itself
// is refused when it is read (at init, for a real workload).
func TestBadTagsPanic(t *testing.T) {
	for name, typ := range map[string]reflect.Type{
		"no usage": reflect.TypeFor[struct {
			N int32 `param:"n" default:"1"`
		}](),
		"max beyond the type": reflect.TypeFor[struct {
			N int32 `param:"n" default:"1" max:"1<<40" usage:"u"`
		}](),
		"negative into unsigned": reflect.TypeFor[struct {
			N uint32 `param:"n" default:"1" min:"-1" usage:"u"`
		}](),
		"default out of range": reflect.TypeFor[struct {
			N int32 `param:"n" default:"9" max:"5" usage:"u"`
		}](),
		"two fields, one name": reflect.TypeFor[struct {
			A int32 `param:"n" default:"1" usage:"u"`
			B int32 `param:"n" default:"1" usage:"u"`
		}](),
		"not a parameter type": reflect.TypeFor[struct {
			F float64 `param:"f" default:"1" usage:"u"`
		}](),
		"bad name": reflect.TypeFor[struct {
			N int32 `param:"N_x" default:"1" usage:"u"`
		}](),
		"bad bound": reflect.TypeFor[struct {
			N int32 `param:"n" default:"1" max:"lots" usage:"u"`
		}](),
		"order beyond the list": reflect.TypeFor[struct {
			N int32 `param:"n" default:"1" order:"3" usage:"u"`
		}](),
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: read without a panic", name)
				}
			}()
			newBinding(typ)
		}()
	}
	type ok struct {
		A int32      `param:"a" default:"1" usage:"u"`
		B bind.Bytes `param:"b" default:"4KiB" min:"1" max:"1GiB" usage:"u" unit:"bytes"`
		C bind.Nanos `param:"c" default:"1s" min:"1ms" max:"24h" order:"1" usage:"u"`
		D int32      // not a parameter
	}
	b := newBinding(reflect.TypeFor[ok]())
	var names []string
	for _, p := range b.params {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "c,a,b" || b.params[0].Kind != Duration || b.params[2].Kind != Size || b.params[1].Max != 1<<31-1 || b.params[2].Max != 1<<30 {
		t.Errorf("params %+v", b.params)
	}
}

// TestDefineChecksDefaults checks that a workload must give every
// parameter a default, and may give a default or a position only to a
// parameter it has.
func TestDefineChecksDefaults(t *testing.T) {
	type noDefault struct {
		N int32 `param:"n" usage:"u"`
	}
	type withDefault struct {
		N int32 `param:"n" default:"1" usage:"u"`
	}
	for name, f := range map[string]func(){
		"no default": func() { (&Workload{Name: "x", Funcs: Typed[noDefault]{}}).complete() },
		"default of nothing": func() {
			(&Workload{Name: "x", Funcs: Typed[withDefault]{Defaults: map[string]DynamicDefault{"m": {}}}}).complete()
		},
		"positional of nothing": func() {
			(&Workload{Name: "x", Positional: []string{"m"}, Funcs: Typed[withDefault]{}}).complete()
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: defined without a panic", name)
				}
			}()
			f()
		}()
	}
	w := &Workload{Name: "x", Funcs: Typed[noDefault]{Defaults: map[string]DynamicDefault{"n": {Text: "two", Func: func(Values) string { return "2" }}}}}
	if v, err := w.Resolve(nil); err != nil || v["n"] != "2" || w.Params[0].DefaultString() != "two" {
		t.Errorf("dynamic default: %v %v %+v", v, err, w.Params)
	}
}

// TestParameterlessWorkload checks that a workload without parameters (a
// test's) needs no parameter struct, and that one with Params but no Funcs
// is refused.
func TestParameterlessWorkload(t *testing.T) {
	w := &Workload{Name: "none", Primary: "real", Run: func(Values, Runtime) (Sample, error) { return Sample{}, nil }}
	w.complete()
	if v, err := w.Resolve(nil); err != nil || len(v) != 0 {
		t.Errorf("Resolve: %v %v", v, err)
	}
	if v, err := w.Canonical(Values{}); err != nil || len(v) != 0 {
		t.Errorf("Canonical: %v %v", v, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a workload with Params and no Funcs registered")
		}
	}()
	Register(&Workload{Name: "hand-written", Primary: "real", Params: []Param{{Name: "n", Kind: Int, Default: "1"}}})
}
