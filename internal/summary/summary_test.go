package summary

import (
	"bytes"
	"strings"
	"testing"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/report"
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

// TestBriefOfAProgram: the brief summary of a program run by exec,
// without metrics of its own: the headline of its primary metric (real),
// its row and cpu's, then the count of the rest (user, the evidence);
// with 3 repetitions the headline says there are too few for an
// interval. BriefAll lists every metric and the evidence.
func TestBriefOfAProgram(t *testing.T) {
	ms := []results.Metric{{Name: "real", Unit: "ns"}, {Name: "user", Unit: "ns"}, {Name: "cpu", Unit: "ns"}, {Name: "k.csw", Unit: "count"}}
	f := file("exec:p", ms, []string{""}, map[string][][]float64{
		"real": {{1e6, 2e6, 3e6}}, "user": {{1e5, 1e5, 1e5}}, "cpu": {{2e5, 2e5, 3e5}}, "k.csw": {{4, 5, 6}}})
	var b strings.Builder
	SummaryWith(&b, f, 0, Options{Detail: report.Brief})
	out := b.String()
	for _, want := range []string{
		"exec:p real: median 2.000 ms (no interval: too few repetitions), n=3, CV 50.0%\n",
		"\nreal ", "\ncpu ",
		"Not shown: 1 process metric, 1 kernel evidence metric, every metric's spread. --all lists the metrics; --full all of it.",
	} {
		if !strings.Contains(out, want) && !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("brief lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\nuser ") || strings.Contains(out, "k.csw") {
		t.Errorf("brief shows user or k.csw:\n%s", out)
	}
	b.Reset()
	SummaryWith(&b, f, 0, Options{Detail: report.BriefAll})
	if out := b.String(); !strings.Contains(out, "\nuser ") || !strings.Contains(out, "k.csw") || !strings.Contains(strings.Join(strings.Fields(out), " "), "Not shown: every metric's spread (mean, stddev, CV, Q1, Q3). --full shows them.") {
		t.Errorf("brief --all:\n%s", out)
	}
}
