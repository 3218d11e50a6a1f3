package summary

import (
	"bytes"
	"strings"
	"testing"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/results"
)

func TestSummaryEvidence(t *testing.T) {
	f := evidenceFile()
	f.Evidence = map[string]string{"perf": "available", "hw": "not available: no hardware performance counters"}
	var buf bytes.Buffer
	Summary(&buf, f, 0)
	out := buf.String()
	head, ev, ok := strings.Cut(out, "kernel evidence (k.sys.*")
	if !ok || strings.Contains(head, "k.runq_delay") || !strings.Contains(ev, "k.runq_delay") {
		t.Fatalf("summary:\n%s", out)
	}
	if strings.Contains(ev, "k.lock.mutex.count") || !strings.Contains(ev, "1 more evidence metric is 0") || !strings.Contains(ev, "hw not available: no hardware") {
		t.Errorf("evidence part:\n%s", ev)
	}
}

// TestSummaryZeroMedianScaledByLargest: a time that is 0 in most
// repetitions (PSI I/O pressure) is shown in the unit of its largest
// value, not in ns from its median of 0 ([0, 1128000] ns before).
func TestSummaryZeroMedianScaledByLargest(t *testing.T) {
	ms := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "k.sys.psi_io_some", Unit: "ns", Better: "lower"}}
	f := file("faultme", ms, []string{"a"}, map[string][][]float64{
		"time":              {{1e6, 1.1e6, 1.2e6, 1.3e6, 1.4e6, 1.5e6, 1.6e6, 1.7e6}},
		"k.sys.psi_io_some": {{0, 0, 0, 0, 0, 0, 0, 1128000}},
	})
	var buf bytes.Buffer
	Summary(&buf, f, 0)
	var row string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, "k.sys.psi_io_some") {
			row = strings.Join(strings.Fields(l), " ")
		}
	}
	if row != "k.sys.psi_io_some ms 8 0 [0, 1.128] 0 1.128" {
		t.Errorf("row %q, want it in ms:\n%s", row, buf.String())
	}
}

func TestOutliersShow(t *testing.T) {
	f := file("faultme", []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, []string{""}, map[string][][]float64{
		"time": {{6.49e9, 6.73e9, 3.98e9, 6.80e9}},
	})
	outs := comparison.Outliers(f, 0)
	if len(outs) != 1 || outs[0].Rep != 2 || !(outs[0].Z < -analysis.OutlierThreshold) {
		t.Errorf("outliers %+v", outs)
	}
	var buf bytes.Buffer
	WriteOutliers(&buf, f, 0)
	if !strings.Contains(buf.String(), "time 3.980 s: repetition 3") {
		t.Errorf("WriteOutliers:\n%s", buf.String())
	}
	// Three values: not checked.
	f.Reps = f.Reps[:3]
	buf.Reset()
	WriteOutliers(&buf, f, 0)
	if buf.Len() != 0 || len(comparison.Outliers(f, 0)) != 0 {
		t.Errorf("3 values checked: %q", buf.String())
	}
}
