package sweep

import (
	"bytes"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestReportEvidencePerPoint: evidence metrics get a table of their own,
// per point, after the other metrics; all-zero ones are left out.
func TestReportEvidencePerPoint(t *testing.T) {
	f := synthetic("base", []int{1, 2, 4}, 1e6, 0.05, 0.002, 3, 1)
	f.Metrics = append(f.Metrics,
		results.Metric{Name: "k.runq_delay", Unit: "ns", Better: "lower"},
		results.Metric{Name: "k.sys.irq_tlb", Unit: "count", Better: "lower"})
	for i := range f.Reps {
		th := []float64{1, 2, 4}[f.Reps[i].Config]
		f.Reps[i].Metrics.Set("k.runq_delay", th*1e6)
		f.Reps[i].Metrics.Set("k.sys.irq_tlb", 0)
	}
	a, err := Analyze(f)
	if err != nil {
		t.Fatal(err)
	}
	var txt bytes.Buffer
	Report(&txt, a)
	out := txt.String()
	other, ev, ok := strings.Cut(out, "kernel evidence per point")
	if !ok || !strings.Contains(other, "pages") || strings.Contains(other, "k.runq_delay") {
		t.Fatalf("report:\n%s", out)
	}
	if !strings.Contains(ev, "k.runq_delay") || !strings.Contains(ev, "4.000 ms") || strings.Contains(ev, "k.sys.irq_tlb") {
		t.Errorf("evidence part:\n%s", ev)
	}
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 80 && (strings.Contains(line, "k.") || strings.Contains(line, "evidence")) {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
}
