package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// TestOutliersSkipNearConstantCounters: a counter that differs by a few
// counts in 65000 (MAD near 0, z = 50) is not an outlier; a repetition 40%
// off is, numbered within its configuration.
func TestOutliersSkipNearConstantCounters(t *testing.T) {
	ms := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "faults", Unit: "count"}}
	f := file("faultme", ms, []string{"a", "b"}, map[string][][]float64{
		"time":   {{10e9, 10.1e9, 9.9e9, 10.05e9, 9.95e9, 10.02e9}, {6e9, 6.1e9, 3.6e9, 6.05e9, 5.95e9, 6.02e9}},
		"faults": {{65542, 65542, 65542, 65542, 65560, 65542}, {65542, 65542, 65543, 65542, 65542, 65542}},
	})
	var buf bytes.Buffer
	if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{}, "text"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "B faults") || strings.Contains(out, "A faults") {
		t.Errorf("a near-constant counter is listed as an outlier:\n%s", out)
	}
	if !strings.Contains(out, "B time 3.600 s: repetition 3 of b,") {
		t.Errorf("the 40%% outlier is not listed as repetition 3 of side b:\n%s", out)
	}
}

func TestOutlierListIsCapped(t *testing.T) {
	var ms []results.Metric
	vals := map[string][][]float64{}
	for i := 0; i < 12; i++ {
		name := fmt.Sprintf("m%02d", i)
		ms = append(ms, results.Metric{Name: name, Unit: "ns", Better: "lower"})
		vals[name] = [][]float64{{10, 10.1, 9.9, 10.05, 9.95, 20}, {10, 10.1, 9.9, 10.05, 9.95, 10}}
	}
	f := file("x", ms, []string{"a", "b"}, vals)
	var buf bytes.Buffer
	if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{}, "text"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, ": repetition 6 of a"); n != comparison.OutlierListMax {
		t.Errorf("%d outlier lines, want %d:\n%s", n, comparison.OutlierListMax, out)
	}
	if !strings.Contains(out, "... and 4 more (--format json lists them all)") {
		t.Errorf("no line says how many more:\n%s", out)
	}
}
