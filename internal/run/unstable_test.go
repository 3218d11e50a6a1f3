package run

import (
	"strings"
	"testing"

	"contend/internal/results"
)

func TestUnstableWarnings(t *testing.T) {
	f := &results.File{Primary: "time", Configs: []results.Config{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
	add := func(c int, xs ...float64) {
		for _, x := range xs {
			f.Reps = append(f.Reps, results.Rep{Config: c, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": x})})
		}
	}
	add(0, 100, 101, 99, 100, 102, 98) // stdev/mean 1.4%
	add(1, 80, 100, 120, 100, 80, 120) // stdev/mean 17.9% (sd 17.89, mean 100)
	add(2, 10, 1000)                   // too few runs to say
	ws := UnstableWarnings(f)
	if len(ws) != 1 || !strings.Contains(ws[0], "b: time varies by 17.9% over 6 runs") {
		t.Errorf("warnings %q, want one for b at 17.9%%", ws)
	}
}
