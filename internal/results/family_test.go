package results

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMetricFamily: a header metric "k.profile.self.*" describes every
// metric of that prefix; read back (by repetitions and AsColumns) the
// family is replaced by its members, with the family's unit and
// direction; a metric of no family is still refused as undescribed.
func TestMetricFamily(t *testing.T) {
	f := sampleFile()
	f.Metrics = append(f.Metrics, Metric{Name: "k.profile.self.*", Unit: "%", Desc: "share of samples in the symbol"})
	path := filepath.Join(t.TempDir(), "r.json")
	w, err := Create(path, f)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []map[string]float64{
		{"time": 1000, "k.profile.self.do_anonymous_page": 40, "k.profile.self.clear_page_erms": 25},
		{"time": 1100, "k.profile.self.do_anonymous_page": 42, "k.profile.self.[unknown] (libc.so.6)": 3},
	} {
		if err := w.Add(Rep{Index: i, Status: StatusOK, Start: time.Unix(int64(i), 0).UTC(), Metrics: ValuesOf(m)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(time.Unix(9, 0).UTC(), true); err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]ReadOption{nil, {AsColumns}} {
		g, err := Read(path, opts...)
		if err != nil {
			t.Fatalf("Read %v: %v", opts, err)
		}
		var names []string
		for _, m := range g.Metrics {
			names = append(names, m.Name)
			if strings.HasPrefix(m.Name, "k.profile.self.") && (m.Unit != "%" || !strings.HasPrefix(m.Desc, "share of samples in the symbol: ")) {
				t.Errorf("%v: member %+v", opts, m)
			}
		}
		want := "time pages k.profile.self.[unknown] (libc.so.6) k.profile.self.clear_page_erms k.profile.self.do_anonymous_page"
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%v: metrics %q, want %q", opts, got, want)
		}
		if v := g.Values(0, "k.profile.self.do_anonymous_page"); len(v) != 2 || v[0] != 40 || v[1] != 42 {
			t.Errorf("%v: values %v", opts, v)
		}
		// A member a repetition of the family lacks is 0 there (below
		// the collector's threshold), not missing.
		if v := g.Values(0, "k.profile.self.clear_page_erms"); len(v) != 2 || v[0] != 25 || v[1] != 0 {
			t.Errorf("%v: clear_page_erms %v, want [25 0]", opts, v)
		}
	}
	// The family stays in the header of a file written again from what
	// was read: a repetition added later may carry a member not seen yet.
	g, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	g.Reps = append(g.Reps, Rep{Index: 2, Status: StatusOK, Metrics: ValuesOf(map[string]float64{"time": 900, "k.profile.self.new_symbol": 7})})
	b2, err := Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Parse(b2)
	if err != nil {
		t.Fatalf("a new member after a rewrite: %v", err)
	}
	if m, ok := h.Metric("k.profile.self.new_symbol"); !ok || m.Unit != "%" {
		t.Errorf("new member: %+v %v", m, ok)
	}
	if _, ok := h.Metric("k.profile.self.*"); !ok {
		t.Error("the family is not found by Metric after reading")
	}

	// A metric outside every family is undescribed.
	bad := sampleFile()
	bad.Metrics = append(bad.Metrics, Metric{Name: "k.profile.self.*", Unit: "%"})
	bad.Reps = []Rep{{Index: 0, Status: StatusOK, Metrics: ValuesOf(map[string]float64{"k.profile.children.x": 1})}}
	b, err := Marshal(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), `undescribed metric "k.profile.children.x"`) {
		t.Errorf("Parse of a metric outside the family: %v", err)
	}
	if _, ok := Family("k.profile.self.*"); !ok {
		t.Error("Family(k.profile.self.*) not a family")
	}
	if _, ok := Family("time*"); ok {
		t.Error("Family(time*) is a family: a family's prefix ends in a dot")
	}
}
