package external

import (
	"math"
	"strings"
	"testing"

	"contend/internal/workload"
)

// TestPresetRoundTrip: for every registered workload with a preset, the
// lines its Original prints for a synthetic repetition (what --format
// original shows) parse with the preset to the same values, and every
// metric the preset finds there is one the workload has, under the same
// name (so that compare and verify pair them). A new workload with a
// preset is covered without changing this test.
func TestPresetRoundTrip(t *testing.T) {
	n := 0
	for _, w := range workload.All() {
		if w.Preset == "" {
			continue
		}
		n++
		t.Run(w.Name, func(t *testing.T) {
			p, err := LookupPreset(w.Preset)
			if err != nil {
				t.Fatal(err)
			}
			if w.Original == nil {
				t.Fatalf("preset %s but no Original", w.Preset)
			}
			given := map[string]string{}
			for _, p := range w.Params {
				if p.Kind == workload.String && w.Quick == nil { // an outside file (wis's --test)
					given[p.Name] = "./x"
				}
			}
			v, err := w.Resolve(given)
			if err != nil {
				t.Fatal(err)
			}
			s := syntheticSample(w, v)
			proc := map[string]float64{"real": 2.5e9, "user": 1.25e9, "sys": 0.75e9}
			text := strings.Join(w.Original(v, s, proc), "\n") + "\n"
			got, err := Extract(p.Metrics, text)
			if err != nil {
				t.Fatalf("the preset does not parse the original output: %v\n%s", err, text)
			}
			if len(got) == 0 {
				t.Fatalf("the preset finds nothing in:\n%s", text)
			}
			for name, g := range got {
				if presetOnly[w.Preset+"."+name] {
					continue
				}
				want, ok := s.Metrics[name]
				if !ok {
					if _, isMetric := w.Metric(name); !isMetric {
						t.Errorf("the preset finds %s, which %s has no metric of that name", name, w.Name)
						continue
					}
					want, ok = proc[name]
				}
				if !ok {
					continue
				}
				if math.Abs(g-want) > 1e-3*math.Abs(want)+1e-9 {
					t.Errorf("%s: printed and parsed back %g, want %g\n%s", name, g, want, text)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no workload has a preset")
	}
}

// presetOnly are metrics of a preset that the original prints derived
// from others (and rounded as it did), which a synthetic repetition does
// not make consistent: their names are not checked against the workload's.
var presetOnly = map[string]bool{
	"osim.per_loop_orig":     true, // time / loops, truncated
	"sysbench.events_avg":    true, // events / threads
	"sysbench.events_stddev": true,
}

// syntheticSample gives every metric of w a distinct value of its unit. A
// family NAME_avg, NAME_stddev, NAME_min, NAME_max comes from a series
// NAME of one value per thread (what an original prints those from).
func syntheticSample(w *workload.Workload, v workload.Values) workload.Sample {
	s := workload.Sample{Metrics: map[string]float64{}, Series: map[string][]float64{}}
	for i, m := range w.Metrics {
		x := float64(1000 + 37*i)
		switch m.Unit {
		case "ns":
			x = 123456789 + 1e6*float64(i)
		case "ratio":
			x = 0.5
		}
		s.Metrics[m.Name] = x
	}
	n := 2
	if _, ok := w.Param("threads"); ok {
		n = int(v.Int("threads"))
	}
	for _, m := range w.Metrics {
		base, ok := strings.CutSuffix(m.Name, "_avg")
		if !ok {
			continue
		}
		var xs []float64
		var sum float64
		for i := 0; i < n; i++ {
			xs = append(xs, 2e8+3e7*float64(i))
			sum += xs[i]
		}
		mean := sum / float64(n)
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		s.Series[base] = xs
		s.Metrics[base+"_avg"] = mean
		for name, x := range map[string]float64{"_stddev": math.Sqrt(ss / float64(n)), "_min": xs[0], "_max": xs[n-1]} {
			if _, has := w.Metric(base + name); has {
				s.Metrics[base+name] = x
			}
		}
	}
	return s
}
