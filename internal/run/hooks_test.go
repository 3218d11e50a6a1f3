package run

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"contend/internal/ab"
	"contend/internal/external"
	"contend/internal/harness"
	"contend/internal/results"
	"contend/internal/workload"
)

// TestPrepareAndCleanup: the prepare hook runs the slot's side's command
// and gives its output; a side without one gives nothing; the cleanup
// hook's output is a notice and its failure a problem.
func TestPrepareAndCleanup(t *testing.T) {
	h := Prepare([]string{"", "echo side-b"}, time.Minute)
	if out, err := h.Before(context.Background(), harness.Slot{Config: 1}); err != nil || out != "side-b\n" {
		t.Errorf("side B: %q %v", out, err)
	}
	if out, err := h.Before(context.Background(), harness.Slot{Config: 0}); err != nil || out != "" {
		t.Errorf("side A: %q %v", out, err)
	}
	ui := &fakeUI{}
	if err := Cleanup("echo cleaned", time.Minute).Close(ui); err != nil || len(ui.notices) != 1 || ui.notices[0] != "cleaned" {
		t.Errorf("cleanup: %v, notices %q", err, ui.notices)
	}
	Cleanup("exit 3", time.Minute).Close(ui)
	if len(ui.problems) != 1 || !strings.HasPrefix(ui.problems[0], "warning: cleanup") {
		t.Errorf("failed cleanup: problems %q", ui.problems)
	}
}

// TestTraceRefusesABadSpec: the tracefs hook's Open fails, through wrap,
// on events it cannot name, before it switches anything.
func TestTraceRefusesABadSpec(t *testing.T) {
	wrapped := errors.New("wrapped")
	err := Trace("no/such", func(error) error { return wrapped }).Open(&results.File{})
	if err != wrapped {
		t.Errorf("Open: %v", err)
	}
}

// TestRunners: the workload runner gives the prepare output as the
// repetition's output, the program runner in its notes; neither starts a
// child here (no binary, no program).
func TestRunners(t *testing.T) {
	old := harness.Executable
	defer func() { harness.Executable = old }()
	harness.Executable = func() (string, error) { return "", errors.New("no binary") }
	w := &workload.Workload{Name: "fake"}
	o := ByConfig(Workload(w, []workload.Values{{}}, time.Second))(context.Background(), Slot{Prepared: "prep\n"})
	if o.Rep.Status != results.StatusFailed || !strings.Contains(o.Rep.Error, "no binary") || o.Rep.Output != "prep\n" {
		t.Errorf("workload: %+v", o.Rep)
	}
	o = Programs(external.Program{})(context.Background(), Slot{Prepared: "prep\n"})
	if o.Rep.Status != results.StatusFailed || len(o.Rep.Notes) != 1 || o.Rep.Notes[0] != "prepare output: prep" {
		t.Errorf("program: %+v", o.Rep)
	}
	if Timeout(w, nil, 0) != 0 || Timeout(w, nil, time.Second) != time.Second {
		t.Error("Timeout of a workload without a default")
	}
	w.Timeout = func(workload.Values) time.Duration { return time.Hour }
	if Timeout(w, nil, 0) != time.Hour || Timeout(w, nil, time.Second) != time.Second {
		t.Error("Timeout of a workload with a default")
	}
	c := results.Config{}
	SetEnv(&c, "k", "v")
	if c.Env["k"] != "v" {
		t.Errorf("SetEnv: %v", c.Env)
	}
}

// TestTerminalProgress: on a terminal the progress line says where the
// run is and the last value, and is cleared before a failure's line and
// at the end.
func TestTerminalProgress(t *testing.T) {
	var b bytes.Buffer
	ui := NewTerminal(&b, TerminalOptions{Total: 3, Metric: "real", Unit: "ns"})
	ui.on = true
	ui.Rep(results.Rep{Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"real": 1})})
	ui.Rep(results.Rep{Index: 1, Status: results.StatusFailed, Error: "boom"})
	ui.opt.Count = func(done int, _ results.Rep) string { return "pair 2 of 2" }
	ui.Rep(results.Rep{Index: 2, Status: results.StatusOK})
	ui.Rep(results.Rep{Index: 3, Status: results.StatusInterrupted})
	ui.Done()
	got := b.String()
	for _, want := range []string{"\r\x1b[Krepetition 1 of 3: real 1 ns, ETA ", "repetition 2 failed: boom\n", "pair 2 of 2: ok"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in %q", want, got)
		}
	}
}

// TestABHooks checks the hooks of an A/B plan: the prepare hook always,
// the tracefs switch and the cleanup only when the plan has them, the
// switch first and the cleanup last (it runs before the events are put
// back, hooks closing in reverse).
func TestABHooks(t *testing.T) {
	if hs := ABHooks(ab.Plan{}, nil); len(hs) != 1 || hs[0].Before == nil {
		t.Errorf("plain plan: %d hooks", len(hs))
	}
	hs := ABHooks(ab.Plan{Trace: "sched", Cleanup: "true"}, nil)
	if len(hs) != 3 || hs[0].Open == nil || hs[1].Before == nil || hs[2].Close == nil {
		t.Errorf("trace and cleanup: %d hooks", len(hs))
	}
}
