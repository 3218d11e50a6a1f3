package ab

import (
	"strings"
	"testing"

	"contend/analysis"
)

// TestStopText: the stop line names the pairs, the successful runs when
// some failed, and the design (moved from cmd/contend's TestABStopLine).
func TestStopText(t *testing.T) {
	seq, err := Sequential(0.05, 3, 6, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	d := &analysis.Decision{N: 6, NA: 6, NB: 5, Stop: true, NominalAlpha: seq.Levels[6], Reason: "reached the maximum of 6 pairs"}
	line := StopText(d, seq)
	if !strings.Contains(line, "after 6 of at most 6 pairs, 6+5 successful runs") || !strings.Contains(line, "Pocock-type alpha spending of 0.05") {
		t.Errorf("stop line: %s", line)
	}
}

// TestReportAlpha: a fixed run decides at alpha, an adaptive one at its
// last look's level, and a look that could decide nothing at half the
// smallest p-value its sample sizes allow (so nothing is significant).
func TestReportAlpha(t *testing.T) {
	if a := ReportAlpha(0.05, nil); a != 0.05 {
		t.Errorf("fixed: %v", a)
	}
	if a := ReportAlpha(0.05, &analysis.Decision{NominalAlpha: 0.0123}); a != 0.0123 {
		t.Errorf("adaptive: %v", a)
	}
	// 2+2 values: the smallest two-sided p-value is 2/C(4,2) = 1/3.
	if a := ReportAlpha(0.05, &analysis.Decision{NA: 2, NB: 2}); a < 0.1666 || a > 0.1667 {
		t.Errorf("no look: %v, want 1/6", a)
	}
	if s, err := Sequential(0.05, 3, 6, 0); s != nil || err != nil {
		t.Errorf("fixed run: %v %v", s, err)
	}
}
