package run

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestProgressOnATerminal (from cmd/contend): ab's progress counts pairs
// and sides, a failure is printed on a cleared line, an interrupted
// repetition is not reported (Main says it once), and no progress line
// is left on the screen at the end.
func TestProgressOnATerminal(t *testing.T) {
	var b strings.Builder
	p := NewTerminal(&b, TerminalOptions{Total: 4, Metric: "time", Unit: "ns",
		Count: func(done int, rep results.Rep) string {
			return fmt.Sprintf("pair %d of 2, side %s", (done+1)/2, strings.ToUpper([]string{"a", "b"}[rep.Config]))
		},
		Label: func(rep results.Rep) string { return "side " + []string{"a", "b"}[rep.Config] },
	})
	p.on = true
	p.Rep(results.Rep{Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": 1e6})})
	p.Rep(results.Rep{Index: 1, Config: 1, Status: results.StatusFailed, Error: "boom"})
	p.Rep(results.Rep{Index: 2, Status: results.StatusInterrupted, Error: "interrupted"})
	p.Done()
	out := b.String()
	if !strings.Contains(out, "pair 1 of 2, side A: time 1.000 ms") || !strings.Contains(out, "pair 1 of 2, side B: failed") {
		t.Errorf("ab progress does not count pairs: %q", out)
	}
	if !strings.Contains(out, "\r\033[Krepetition 2 (side b) failed: boom\n") {
		t.Errorf("a failure is not printed on a cleared line: %q", out)
	}
	if strings.Contains(out, "repetition 3") || strings.Contains(out, "interrupted") {
		t.Errorf("an interrupted repetition is reported by progress (Main says it once): %q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("the progress line is left on the screen at the end: %q", out)
	}
}

// TestPairProgress: the count and labels of an A/B run's progress.
func TestPairProgress(t *testing.T) {
	f := &results.File{Configs: []results.Config{{Name: "a"}, {Name: "b"}}}
	o := PairProgress(f, 30, "time", "ns")
	b := results.Rep{Config: 1}
	if o.Total != 60 || o.Count(3, b) != "pair 2 of 30, side B" || o.Label(b) != "side b" || o.Side(b) != "side B" {
		t.Errorf("%d %q %q %q", o.Total, o.Count(3, b), o.Label(b), o.Side(b))
	}
}

// TestNoticeWrapsToTheTerminal: a notice or a problem wider than the
// terminal ($COLUMNS here) wraps between words, its continuation two
// spaces in; without a width (a file, a pipe) it is one line, whole.
func TestNoticeWrapsToTheTerminal(t *testing.T) {
	line := "warning: running in a virtual machine (cpu flag hypervisor; PVM): steal time and hypervisor-bound faults add noise"
	for _, width := range []int{80, 100, 0} {
		t.Setenv("COLUMNS", "")
		if width > 0 {
			t.Setenv("COLUMNS", fmt.Sprint(width))
		}
		var b bytes.Buffer
		term := NewTerminal(&b, TerminalOptions{})
		term.Notice(line)
		term.Problem(line)
		got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if width == 0 {
			if len(got) != 2 || got[0] != line || got[1] != line {
				t.Errorf("no width: %q", got)
			}
			continue
		}
		if strings.Join(strings.Fields(b.String()), " ") != line+" "+line || len(got) != 4 {
			t.Errorf("COLUMNS=%d: want each in 2 lines, the same words: %q", width, got)
		}
		for i, l := range got {
			if len(l) > width {
				t.Errorf("COLUMNS=%d: a line of %d: %q", width, len(l), l)
			}
			if !strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "  ") {
				t.Errorf("COLUMNS=%d: line %d not a continuation: %q", width, i, l)
			}
		}
	}
}
