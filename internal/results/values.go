package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

// Value is one metric's value in a repetition, in the metric's base unit.
type Value struct {
	Name string
	X    float64
}

// Values holds a repetition's metrics, sorted by name, each name once. It
// reads and writes as the JSON object {"name": value, ...} that a
// map[string]float64 gave, and answers like one (Get, Lookup, Set,
// Delete, All), but costs 24 bytes a metric where a map cost 256 bytes
// for the first: a file of 100,000 repetitions is read into one array of
// Values per range of lines rather than 100,000 maps, and on a machine
// where a page's first touch is slow that is most of the time of reading
// it (docs/result-files.md).
type Values []Value

// ValuesOf returns the metrics of m as Values.
func ValuesOf(m map[string]float64) Values {
	if m == nil {
		return nil
	}
	v := make(Values, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v = append(v, Value{k, m[k]})
	}
	return v
}

// find returns where name is or would be in v.
func (v Values) find(name string) (int, bool) {
	return slices.BinarySearchFunc(v, name, func(x Value, n string) int { return strings.Compare(x.Name, n) })
}

// Lookup returns the value of metric name, and whether v has it.
func (v Values) Lookup(name string) (float64, bool) {
	if i, ok := v.find(name); ok {
		return v[i].X, true
	}
	return 0, false
}

// Get returns the value of metric name, zero when v does not have it.
func (v Values) Get(name string) float64 {
	x, _ := v.Lookup(name)
	return x
}

// Set sets metric name to x. A new name makes v a new array: a copy of
// a Rep that shared it (as copies of a map did) keeps what it had, never
// a shifted half of it.
func (v *Values) Set(name string, x float64) {
	i, ok := v.find(name)
	if ok {
		(*v)[i].X = x
		return
	}
	*v = slices.Insert((*v)[:len(*v):len(*v)], i, Value{name, x})
}

// Merge sets the metrics of m, each as Set does, in one new array.
func (v *Values) Merge(m map[string]float64) {
	if len(m) == 0 {
		return
	}
	out := make(Values, 0, len(*v)+len(m))
	out = append(out, *v...)
	for k, x := range m {
		out = append(out, Value{k, x})
	}
	// normalize keeps the last of a name: m's over v's (stable sort).
	*v = out.normalize()
}

// Delete removes metric name, if v has it, leaving v a new array.
func (v *Values) Delete(name string) {
	if i, ok := v.find(name); ok {
		*v = slices.Concat((*v)[:i], (*v)[i+1:])
	}
}

// All yields each metric's name and value, in name order.
func (v Values) All() iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		for _, x := range v {
			if !yield(x.Name, x.X) {
				return
			}
		}
	}
}

// Names returns the metric names, in order.
func (v Values) Names() []string {
	n := make([]string, len(v))
	for i, x := range v {
		n[i] = x.Name
	}
	return n
}

// Clone returns a copy of v that shares nothing with it.
func (v Values) Clone() Values {
	if v == nil {
		return nil
	}
	return slices.Clone(v)
}

// Map returns v as a map.
func (v Values) Map() map[string]float64 {
	if v == nil {
		return nil
	}
	m := make(map[string]float64, len(v))
	for _, x := range v {
		m[x.Name] = x.X
	}
	return m
}

// normalize sorts v by name, keeping the last of a repeated name (as a
// JSON object read into a map does).
func (v Values) normalize() Values {
	if v.inOrder() {
		return v
	}
	slices.SortStableFunc(v, func(a, b Value) int { return strings.Compare(a.Name, b.Name) })
	out := v[:0]
	for i, x := range v {
		if i+1 < len(v) && v[i+1].Name == x.Name {
			continue // a later one wins
		}
		out = append(out, x)
	}
	clear(v[len(out):])
	return out[:len(out):len(out)]
}

// inOrder says whether v's names are in strictly increasing order.
func (v Values) inOrder() bool {
	for i := 1; i < len(v); i++ {
		if v[i].Name <= v[i-1].Name {
			return false
		}
	}
	return true
}

// MarshalJSON writes v as a JSON object, its names in order (sorted, as
// the fast encoder writes them, when v was built out of order).
func (v Values) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, x := range v.sorted() {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(x.Name)
		if err != nil {
			return nil, err
		}
		f, err := json.Marshal(x.X)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", x.Name, err)
		}
		b = append(append(append(b, k...), ':'), f...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads a JSON object of numbers; null makes v nil, as it
// made a map.
func (v *Values) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*v = nil
		return nil
	}
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*v = ValuesOf(m)
	return nil
}

// sorted returns v, or a sorted copy when v was built out of order (a
// literal): what is written is always in name order.
func (v Values) sorted() Values {
	if v.inOrder() {
		return v
	}
	return slices.Clone(v).normalize()
}
