package mmtestsblock

import (
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/mmtests"
	"contend/internal/results"
)

func fileOf(name string, vals []float64) *results.File {
	f := &results.File{Workload: "x", Primary: "ops", Metrics: []results.Metric{{Name: "ops", Unit: "ops/s", Better: "higher"}},
		Configs: []results.Config{{Name: name, Env: map[string]string{mmtests.NameEnv: name}}}}
	for i, v := range vals {
		r := results.Rep{Index: i, Status: results.StatusOK}
		r.Metrics.Set("ops", v)
		f.Reps = append(f.Reps, r)
	}
	return f
}

// TestStarsByRule compares two sides of 15 runs whose means are 1.5
// standard deviations apart: contend's test stars the Hmean cell and says
// its change in the footer; mmtests' band rule (the bands overlap) does
// not. The sides are named by their mmtests runs.
func TestStarsByRule(t *testing.T) {
	base := []float64{100, 96, 104, 98, 102, 95, 105, 99, 101, 97, 103, 100, 94, 106, 100}
	next := make([]float64, len(base))
	for i, v := range base {
		next[i] = v + 4.5 // sd of base is 3.3
	}
	sides := []comparison.Side{comparison.FileSide("a.jsonl", fileOf("6.1-base", base)), comparison.FileSide("b.jsonl", fileOf("6.1-patched", next))}
	r, err := comparison.Build(sides, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		star string
		want bool
	}{{StarContend, true}, {StarMmtests, false}} {
		tb, err := Build(r, Options{Star: c.star})
		if err != nil {
			t.Fatal(err)
		}
		if tb.Names[0] != "6.1-base" || len(tb.Rows) != 1 || tb.Rows[0].Star[1] != c.want {
			t.Errorf("--star %s: names %v, rows %+v; want the star %v", c.star, tb.Names, tb.Rows, c.want)
		}
		foot := strings.Join(tb.Footer, "\n")
		if c.want && !strings.Contains(foot, "*  Hmean ops, 6.1-patched: +4.5%") || !c.want && !strings.Contains(foot, "no starred cell") {
			t.Errorf("--star %s: footer\n%s", c.star, foot)
		}
		if !strings.Contains(foot, "contend: n 6.1-base 15 runs, 6.1-patched 15 runs of ops") {
			t.Errorf("footer without n:\n%s", foot)
		}
	}
}
