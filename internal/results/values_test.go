package results

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestValuesLikeAMap drives Values and a map with the same random Sets and
// Deletes and checks that they answer the same, and that Values stay in
// name order.
func TestValuesLikeAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	names := []string{"time", "real", "k.ctx", "a", "zz", "é", "x<y"}
	for trial := range 200 {
		var v Values
		m := map[string]float64{}
		for range rng.IntN(30) {
			k := names[rng.IntN(len(names))]
			switch rng.IntN(3) {
			case 0:
				v.Delete(k)
				delete(m, k)
			default:
				x := rng.NormFloat64()
				v.Set(k, x)
				m[k] = x
			}
		}
		if !v.inOrder() {
			t.Fatalf("trial %d: %v not in order", trial, v)
		}
		if got := v.Map(); len(m) > 0 && !maps.Equal(got, m) {
			t.Fatalf("trial %d: %v, map %v", trial, got, m)
		}
		for _, k := range names {
			x, ok := v.Lookup(k)
			y, has := m[k]
			if ok != has || x != y || v.Get(k) != y {
				t.Fatalf("trial %d: %s: %v %v, map %v %v", trial, k, x, ok, y, has)
			}
		}
		w := ValuesOf(m)
		if len(m) > 0 && !reflect.DeepEqual([]Value(w), []Value(v)) {
			t.Fatalf("trial %d: ValuesOf %v, Set %v", trial, w, v)
		}
	}
}

// TestValuesCopiesDoNotShift checks that a Set or Delete on one copy of a
// Rep's Values (which share an array, as copies of a Rep shared a map)
// never shifts what the other copy holds: a decoder cuts each record's
// Values from one array.
func TestValuesCopiesDoNotShift(t *testing.T) {
	arena := make([]Value, 0, 16)
	arena = append(arena, Value{"b", 2}, Value{"d", 4})
	orig := Values(arena[:2:16]) // room after it, as an uncapped piece would have
	cp := orig
	cp.Set("a", 1)
	cp.Set("c", 3)
	cp.Delete("d")
	want := Values{{"b", 2}, {"d", 4}}
	if !reflect.DeepEqual(orig, want) {
		t.Errorf("the original became %v, want %v", orig, want)
	}
	if got := (Values{{"a", 1}, {"b", 2}, {"c", 3}}); !reflect.DeepEqual(cp, got) {
		t.Errorf("the copy is %v, want %v", cp, got)
	}
	m := Values{{"a", 1}, {"c", 3}}
	m.Merge(map[string]float64{"c": 30, "b": 20})
	if got := (Values{{"a", 1}, {"b", 20}, {"c", 30}}); !reflect.DeepEqual(m, got) {
		t.Errorf("Merge: %v, want %v", m, got)
	}
}

// TestValuesJSONAsAMap checks that Values read and write the JSON of a
// map[string]float64: names sorted on writing; on reading any order, and
// a repeated name's last value, as encoding/json reads an object into a
// map. The fast decoder must read the same (records of other writers).
func TestValuesJSONAsAMap(t *testing.T) {
	for _, in := range []string{
		`{}`, `{"a":1}`, `{"b":2,"a":1}`, `{"a":1,"a":3}`, `{"z":1,"a":2,"z":5,"m":0.5}`, `{"é":1e300,"x<y":-0}`,
	} {
		var m map[string]float64
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatal(err)
		}
		var v Values
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !maps.Equal(v.Map(), m) || !v.inOrder() {
			t.Errorf("%s: read %v, map %v", in, v, m)
		}
		wantOut, _ := json.Marshal(m)
		out, err := json.Marshal(v)
		if err != nil || string(out) != string(wantOut) {
			t.Errorf("%s: wrote %s (%v), map %s", in, out, err, wantOut)
		}
		line := []byte(`{"rep":{"index":0,"config":0,"status":"ok","metrics":` + in + `}}`)
		var s repScanner
		var r Rep
		if !s.decodeRep(line, &r) {
			t.Fatalf("%s: the fast decoder refused it", in)
		}
		if !maps.Equal(r.Metrics.Map(), m) || !r.Metrics.inOrder() {
			t.Errorf("%s: fast decoder %v, map %v", in, r.Metrics, m)
		}
	}
}

// TestValuesLiteralOutOfOrderWritten: Values built out of order (a
// literal) are written in name order, the last of a repeated name, by
// encoding/json (a version-1 file, a repetition with series) as by the
// fast encoder: the two wrote different bytes, encoding/json the
// literal's order and both of a repeated name.
func TestValuesLiteralOutOfOrderWritten(t *testing.T) {
	r := Rep{Status: StatusOK, Metrics: Values{{"b", 1}, {"a", 2}, {"b", 3}}}
	var e repEncoder
	fast, err := e.appendRep(nil, &r)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := json.Marshal(record{Rep: &r})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rep":{"index":0,"config":0,"status":"ok","metrics":{"a":2,"b":3}}}`
	if string(fast) != want || string(slow) != want {
		t.Errorf("fast encoder %s\nencoding/json %s\nwant %s", fast, slow, want)
	}
	if r.Metrics[0].Name != "b" {
		t.Errorf("writing changed the literal: %v", r.Metrics)
	}
}
