package workload

import (
	"strings"
	"testing"

	"contend/bind"
)

// TestEveryWorkloadIsDescribed checks what list, help, flags, reports and
// sweeps rely on: every workload says what it is and where it comes from,
// every parameter has usage text and a default that parses, every metric
// a unit, and the primary metric exists.
func TestEveryWorkloadIsDescribed(t *testing.T) {
	if len(All()) < 6 {
		t.Fatalf("only %d workloads registered: %v", len(All()), Names())
	}
	for _, w := range All() {
		if w.Summary == "" || w.Provenance == "" || w.Doc == "" || w.Run == nil || w.Check == nil {
			t.Errorf("%s: summary, provenance, doc, Run and Check are required", w.Name)
		}
		if n := len(w.Name) + 2 + len(w.Summary); n > 80 {
			t.Errorf("%s: the list line has %d columns", w.Name, n)
		}
		for _, p := range w.Params {
			if p.Usage == "" {
				t.Errorf("%s --%s: no usage text", w.Name, p.Name)
			}
		}
		if w.Quick != nil { // plugin's --so and wis's --test have no default
			if _, err := w.Resolve(nil); err != nil {
				t.Errorf("%s: defaults do not resolve: %v", w.Name, err)
			}
		}
		for _, m := range w.Metrics {
			if m.Unit == "" || m.Desc == "" {
				t.Errorf("%s metric %s: unit and description are required", w.Name, m.Name)
			}
		}
		if _, ok := w.Metric(w.Primary); !ok {
			t.Errorf("%s: primary metric %q is not described", w.Name, w.Primary)
		}
	}
}

func TestPerSecond(t *testing.T) {
	tp := PerSecond("pages/s", "pages per second", "time", func(p *bind.FaultmeParams, m map[string]float64) float64 { return m["pages"] / float64(p.Threads) })
	v, err := Faultme.Resolve(map[string]string{"threads": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if x, ok := tp.Of(v, map[string]float64{"pages": 500, "time": 250e6}); !ok || x != 1000 {
		t.Errorf("500 pages by 2 threads in 250 ms = %v %v, want 1000/s", x, ok)
	}
	if _, ok := tp.Of(v, map[string]float64{"pages": 500}); ok {
		t.Error("a missing time gave a throughput")
	}
	if _, ok := tp.Of(Values{"threads": "2"}, map[string]float64{"pages": 500, "time": 250e6}); ok {
		t.Error("values that Resolve did not make gave a throughput")
	}
	if !strings.Contains(tp.Desc, "second") || tp.Unit != "pages/s" {
		t.Errorf("%+v", tp)
	}
}

func TestMetricResult(t *testing.T) {
	m := Metric{Name: "time", Unit: "ns", Better: Lower, Desc: "wall time"}
	r := m.Result()
	if r.Name != "time" || r.Unit != "ns" || r.Better != "lower" || r.Desc != "wall time" {
		t.Errorf("Result() = %+v", r)
	}
}

// TestDefaultsShownAsRunsShowThem: list and help show a default in the
// form a run prints the value (Display of the canonical value Resolve
// gives): faultme's --stride [4KiB], not the tag's [4096].
func TestDefaultsShownAsRunsShowThem(t *testing.T) {
	fm, _ := Lookup("faultme")
	if p, _ := fm.Param("stride"); p.DefaultString() != "4KiB" {
		t.Errorf("faultme --stride default shown as %q, want 4KiB", p.DefaultString())
	}
	n := 0
	for _, w := range All() {
		v, err := w.Resolve(nil) // the values of a run at the defaults
		if err != nil {
			continue // a required parameter (plugin --so)
		}
		for _, p := range w.Params {
			if p.DefaultText != "" {
				continue
			}
			n++
			if got, want := p.DefaultString(), p.Display(v[p.Name]); got != want {
				t.Errorf("%s --%s: default shown as %q, a run shows %q", w.Name, p.Name, got, want)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d defaults checked", n)
	}
}

// TestDescribe: list's entry is the summary line, the provenance and one
// line (or two, for a long name) per parameter with its default; help's
// adds the doc, every metric with its unit and direction, and the
// timeout at the defaults.
func TestDescribe(t *testing.T) {
	for _, w := range All() {
		var short, long strings.Builder
		w.Describe(&short, false)
		w.Describe(&long, true)
		s := short.String()
		if !strings.HasPrefix(s, w.Name+": "+w.Summary+"\n  from: ") {
			t.Errorf("%s: list entry starts %q", w.Name, s[:min(len(s), 80)])
		}
		for _, p := range w.Params {
			if !strings.Contains(s, "--"+p.Name+" ["+p.DefaultString()+"]") {
				t.Errorf("%s: --%s with its default missing from the list entry", w.Name, p.Name)
			}
		}
		if strings.Contains(s, "metrics:") || !strings.HasPrefix(long.String(), s[:strings.Index(s, "\n")+1]) {
			t.Errorf("%s: the list entry has metrics, or help starts otherwise", w.Name)
		}
		l := long.String()
		if !strings.Contains(l, "\n"+w.Doc+"\n") || !strings.Contains(l, "parameters (default in brackets):") || !strings.Contains(l, "see 'contend help maxrss'") {
			t.Errorf("%s: help lacks the doc, the parameters' head or the process metrics", w.Name)
		}
		for _, m := range w.Metrics {
			if !strings.Contains(l, "  "+m.Name+" ["+m.Unit) {
				t.Errorf("%s: help lacks metric %s [%s", w.Name, m.Name, m.Unit)
			}
		}
		if _, err := w.Resolve(nil); (w.Timeout != nil && err == nil) != strings.Contains(l, "\ntimeout: each repetition is killed after ") {
			t.Errorf("%s: the timeout line is shown when, and only when, there is a default timeout", w.Name)
		}
	}
}
