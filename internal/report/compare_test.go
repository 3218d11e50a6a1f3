package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"contend/internal/comparison"
	"contend/internal/results"
	"contend/internal/textfmt"
)

// file builds a result file of workload with one config per value list
// (named by names) and the metrics given, every value an ok repetition.
func file(workload string, metrics []results.Metric, names []string, vals map[string][][]float64) *results.File {
	f := &results.File{Format: results.FormatName, Version: 1, Workload: workload, Metrics: metrics,
		Primary: metrics[0].Name, Env: map[string]string{"kernel.release": "6.1.0"}}
	for _, n := range names {
		f.Configs = append(f.Configs, results.Config{Name: n, Params: []results.Param{{Name: "threads", Value: "4"}}})
	}
	idx := 0
	for c := range names {
		n := len(vals[metrics[0].Name][c])
		for i := 0; i < n; i++ {
			ms := map[string]float64{}
			for _, m := range metrics {
				ms[m.Name] = vals[m.Name][c][i]
			}
			f.Reps = append(f.Reps, results.Rep{Index: idx, Config: c, Status: results.StatusOK, Metrics: results.ValuesOf(ms)})
			idx++
		}
	}
	return f
}

var twoMetrics = []results.Metric{
	{Name: "time", Unit: "ns", Better: "lower"},
	{Name: "thread_time_stddev_of_all", Unit: "ns", Better: "lower"},
}

func abFile() *results.File {
	return file("mutex", twoMetrics, []string{"a", "b"}, map[string][][]float64{
		"time":                      {{10e9, 10.1e9, 9.9e9, 10.05e9, 9.95e9, 10.02e9}, {12e9, 12.1e9, 11.9e9, 12.05e9, 11.95e9, 12.02e9}},
		"thread_time_stddev_of_all": {{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 7}},
	})
}

func TestCompareABSides(t *testing.T) {
	f := abFile()
	f.Reps = append(f.Reps,
		results.Rep{Index: 12, Config: 1, Status: results.StatusFailed, Error: "boom"},
		results.Rep{Index: 13, Config: 1, Status: results.StatusTimeout},
		results.Rep{Index: 14, Config: 0, Warmup: true, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": 1})})
	f.Configs[1].Params[0].Value = "8"
	f.Configs[1].Env = map[string]string{"tracefs.events": "lock"}
	var buf bytes.Buffer
	err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{}, "text")
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"mutex time: 10.01 s -> 12.01 s, HL +20.0% [+18.9%, +21.1%]",
		"slower",
		"  A  a  6 ok\n  B  b  6 ok, 1 failed, 1 timeout\n",
		"failed, timed-out and interrupted repetitions are counted, not compared",
		"warning: the parameters differ:\n  threads  A 4  B 8\n",
		"tracefs.events  A (not recorded)  B lock",
		// The long name does not fit the first column: own line.
		"\nthread_time_stddev_of_all\n ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > textfmt.Width {
			t.Errorf("line %d longer than %d: %q", i+1, textfmt.Width, l)
		}
	}
}

func TestCompareHolmFamilies(t *testing.T) {
	f := abFile()
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Pairs[0].Rows[0].Cmp.FamilySize; got != 1 {
		t.Errorf("headline family %d, want 1", got)
	}
	r, err = comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1), comparison.FileSide("a again", f, 0)}, comparison.Options{OneFamily: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Pairs {
		for _, row := range p.Rows {
			if row.Cmp.FamilySize != 4 {
				t.Errorf("one family: size %d, want 4", row.Cmp.FamilySize)
			}
		}
	}
	if len(r.Families) != 1 || !strings.Contains(r.Families[0], "all metrics: Holm over 4 tests") {
		t.Errorf("families %q", r.Families)
	}
}

func TestCompareIncompatible(t *testing.T) {
	a := abFile()
	b := abFile()
	b.Workload = "faultme"
	_, err := comparison.Build([]comparison.Side{comparison.FileSide("x", a, 0), comparison.FileSide("y", b, 0)}, comparison.Options{})
	if !errors.Is(err, comparison.ErrIncompatible) || !strings.Contains(err.Error(), "different workloads: x is mutex, y is faultme") {
		t.Errorf("err %v", err)
	}
	_, err = comparison.Build([]comparison.Side{comparison.FileSide("x", a, 0)}, comparison.Options{})
	if !errors.Is(err, comparison.ErrIncompatible) {
		t.Errorf("one side: %v", err)
	}
	_, err = comparison.Build([]comparison.Side{comparison.FileSide("x", a, 0), comparison.FileSide("y", a, 5)}, comparison.Options{})
	if !errors.Is(err, comparison.ErrIncompatible) {
		t.Errorf("bad config: %v", err)
	}
	failed := abFile()
	for i := range failed.Reps {
		if failed.Reps[i].Config == 1 {
			failed.Reps[i].Status = results.StatusFailed
		}
	}
	_, err = comparison.Build([]comparison.Side{comparison.FileSide("x", failed, 0), comparison.FileSide("y", failed, 1)}, comparison.Options{})
	if !errors.Is(err, comparison.ErrIncompatible) || !strings.Contains(err.Error(), "no successful repetition on side B (y)") {
		t.Errorf("all failed: %v", err)
	}
}

func TestCompareJSONNaN(t *testing.T) {
	// Zero medians make the relative change undefined (NaN): JSON null.
	f := file("mutex", []results.Metric{{Name: "lost", Unit: "count"}}, []string{"a", "b"}, map[string][][]float64{
		"lost": {{0, 0, 0, 1, 0, 0}, {3, 4, 5, 6, 7, 8}},
	})
	var buf bytes.Buffer
	if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{}, "json"); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Pairs []struct{ Metrics []map[string]any }
	}
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	m := v.Pairs[0].Metrics[0]
	if m["change"] != nil || m["verdict"] != "increase" {
		t.Errorf("change %v verdict %v, want null and increase", m["change"], m["verdict"])
	}
	buf.Reset()
	for _, format := range CompareFormats {
		if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{}, format); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
	if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{}, "xml"); err == nil {
		t.Error("xml accepted")
	}
}

func TestBenchUnitsAndNames(t *testing.T) {
	for _, c := range []struct {
		m    results.Metric
		want string
	}{
		{results.Metric{Name: "time", Unit: "ns"}, "ns/op"},
		{results.Metric{Name: "real", Unit: "ns"}, "real-ns/op"},
		{results.Metric{Name: "maxrss", Unit: "bytes"}, "maxrss-B/op"},
		{results.Metric{Name: "pages", Unit: "count"}, "pages/op"},
		{results.Metric{Name: "jain", Unit: "ratio"}, "jain/op"},
		{results.Metric{Name: "ops_per_sec", Unit: "ops/s"}, "ops_per_sec-ops/s"},
	} {
		if got := BenchUnit(c.m, "time"); got != c.want {
			t.Errorf("%s: %q, want %q", c.m.Name, got, c.want)
		}
	}
	f := &results.File{Workload: "semop-multi", Configs: []results.Config{{Params: []results.Param{
		{Name: "threads", Value: "4"}, {Name: "duration", Value: "30000000000", Display: "30 s"}}}}}
	if got := BenchName(f, 0); got != "BenchmarkSemopMulti/threads=4/duration=30_s" {
		t.Errorf("BenchName %q", got)
	}
}

func TestFormatP(t *testing.T) {
	for p, want := range map[float64]string{0.0159: "0.016", 0.1: "0.1", 1: "1", 0.00042: "<0.001", 0.05: "0.05"} {
		if got := FormatP(p); got != want {
			t.Errorf("FormatP(%v) = %q, want %q", p, got, want)
		}
	}
}

// TestCompareTableChangeInterval: the table's change interval is written
// as the headline writes it, a percent sign on both ends ("[+18.9%,
// +21.1%]"); it dropped them ("[+18.9, +21.1]") under a change that has one.
func TestCompareTableChangeInterval(t *testing.T) {
	f := abFile()
	var buf bytes.Buffer
	if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{}, "text"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	const ci = "[+18.9%, +21.1%]"
	if !strings.Contains(out, "HL +20.0% "+ci) {
		t.Fatalf("headline lacks %q:\n%s", ci, out)
	}
	lines := strings.Split(out, "\n")
	found := false
	for i, l := range lines {
		if strings.HasPrefix(l, "time ") && strings.Contains(l, "+20.0%") {
			found = true
			if i+1 >= len(lines) || !strings.HasSuffix(strings.TrimSpace(lines[i+1]), ci) {
				t.Errorf("the table's interval line under %q is not %q:\n%s", l, ci, out)
			}
		}
	}
	if !found {
		t.Fatalf("no table row of time:\n%s", out)
	}
}

// TestCompareMarkdownHeading: the Markdown report heads two sides as the
// text does ("B compared with A"), not "each side", and names the sides
// of three.
func TestCompareMarkdownHeading(t *testing.T) {
	f := abFile()
	for _, c := range []struct {
		sides []comparison.Side
		want  string
	}{
		{[]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, "### mutex: B compared with A (the baseline)\n"},
		{[]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1), comparison.FileSide("c", f, 1)}, "### mutex: each of B..C compared with A (the baseline)\n"},
	} {
		var buf bytes.Buffer
		if err := Compare(&buf, c.sides, comparison.Options{}, "markdown"); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(buf.String(), c.want) {
			t.Errorf("%d sides: the heading is not %q:\n%s", len(c.sides), c.want, buf.String())
		}
	}
}
