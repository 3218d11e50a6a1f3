package harness

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/bind"
	"contend/internal/results"
	"contend/internal/workload"
)

// TestRunRepLeanChild: the mutex test, timed as a whole process like
// `time ./mainc`, runs in a lean child (native/lean.c): its result comes
// back whole, and the child takes fewer page faults than a Go process
// does merely to start (the test binary running no test), the start-up
// that made contend's real 1.06-1.09x the original's.
func TestRunRepLeanChild(t *testing.T) {
	w, _ := workload.Lookup("mutex")
	v, err := w.Resolve(map[string]string{"threads": "2", "locks": "1000"})
	if err != nil {
		t.Fatal(err)
	}
	o := RunRep(context.Background(), w, v, time.Minute, nil)
	if o.Rep.Status != results.StatusOK || o.Rep.Metrics.Get("counter") != 2000 || o.Rep.Metrics.Get("stack_honoured") != 1 {
		t.Fatalf("status %q (%s), metrics %v", o.Rep.Status, o.Rep.Error, o.Rep.Metrics)
	}
	floor := goStartFaults(t)
	if got := o.Rep.Metrics.Get("minflt"); got <= 0 || got >= float64(floor) {
		t.Errorf("the lean child took %v minor faults; a Go process takes %d to start: want fewer", got, floor)
	}
}

// goStartFaults returns the minor faults of a Go process (this test
// binary) that starts and runs no test.
func goStartFaults(t *testing.T) int64 {
	t.Helper()
	goStart := exec.Command(os.Args[0], "-test.run=^$")
	if err := goStart.Run(); err != nil {
		t.Fatal(err)
	}
	return goStart.ProcessState.SysUsage().(*syscall.Rusage).Minflt
}

// TestRunRepLeanOsim: osim forks its workers from the repetition child,
// and forked from the Go child they took 8% more time than the
// original's; it runs lean now, its set's id reported on the pipe and
// removed, the workers' counts in its result, and its child with its
// workers takes fewer page faults than a Go process merely to start.
func TestRunRepLeanOsim(t *testing.T) {
	w, _ := workload.Lookup("osim")
	if w.Lean == nil {
		t.Fatal("osim has no lean child")
	}
	v, err := w.Resolve(map[string]string{"sems": "1", "tasks": "2", "loops": "1000"})
	if err != nil {
		t.Fatal(err)
	}
	o := RunRep(context.Background(), w, v, time.Minute, nil)
	if o.Rep.Status != results.StatusOK || o.Rep.Metrics.Get("loops") != 1000 || o.Rep.Metrics.Get("worker_vcsw")+o.Rep.Metrics.Get("worker_ivcsw") == 0 {
		t.Fatalf("status %q (%s), metrics %v", o.Rep.Status, o.Rep.Error, o.Rep.Metrics)
	}
	floor := goStartFaults(t)
	if got := o.Rep.Metrics.Get("minflt"); got <= 0 || got >= float64(floor) {
		t.Errorf("the osim child and its 2 workers took %v minor faults; a Go process takes %d to start: want fewer", got, floor)
	}
}

// TestRunRepLeanFaultme: faultme runs lean, as the original runs, its
// 400 threads beside libc alone: its result comes back whole (every page
// read, the timed region's faults), and outside its timed region the child
// takes fewer page faults than a Go process merely to start. A THP refusal
// injected into the lean child still fails the repetition on a kernel with
// THP.
func TestRunRepLeanFaultme(t *testing.T) {
	w, _ := workload.Lookup("faultme")
	if w.Lean == nil {
		t.Fatal("faultme has no lean child")
	}
	v, err := w.Resolve(map[string]string{"threads": "3", "mem": "4MiB"})
	if err != nil {
		t.Fatal(err)
	}
	o := RunRep(context.Background(), w, v, time.Minute, nil)
	if o.Rep.Status != results.StatusOK || o.Rep.Metrics.Get("pages") != 1024 || o.Rep.Metrics.Get("faults") <= 0 {
		t.Fatalf("status %q (%s), metrics %v", o.Rep.Status, o.Rep.Error, o.Rep.Metrics)
	}
	floor := goStartFaults(t)
	if outside := o.Rep.Metrics.Get("minflt") - o.Rep.Metrics.Get("faults"); outside <= 0 || outside >= float64(floor) {
		t.Errorf("the faultme child took %v minor faults outside its timed region; a Go process takes %d to start: want fewer", outside, floor)
	}
	if workload.THPBuilt() != workload.THPPresent {
		return
	}
	t.Setenv("CONTEND_TEST_INJECT", "madvise-einval")
	v, err = w.Resolve(map[string]string{"threads": "1", "mem": "4MiB", "thp": "never"})
	if err != nil {
		t.Fatal(err)
	}
	o = RunRep(context.Background(), w, v, time.Minute, nil)
	if o.Rep.Status == results.StatusOK || !strings.Contains(o.Rep.Error, "MADV_NOHUGEPAGE failed: EINVAL") {
		t.Errorf("an injected EINVAL on a kernel with THP: status %q, error %q", o.Rep.Status, o.Rep.Error)
	}
}

// TestLeanChildRefusals: a lean child given a workload it cannot run
// lean, or parameters of the wrong size or spelling, says so in one
// "error" line and exits 1; the parent refuses a malformed report.
func TestLeanChildRefusals(t *testing.T) {
	for _, args := range [][]string{{"semop-multi", "00"}, {"faultme", "00"}, {"mutex", "zz"}, {"mutex"}} {
		cmd := exec.Command(os.Args[0], append([]string{bind.LeanArg}, args...)...)
		out, err := cmd.Output()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || !strings.HasPrefix(string(out), "error ") || strings.Count(string(out), "\n") != 1 {
			t.Errorf("__lean %q: %q, %v; want one error line and exit 1", args, out, err)
		}
	}
	sample := func(int, []byte) (workload.Sample, error) { return workload.Sample{}, nil }
	for _, msg := range []string{"", "x 00", "0 0g"} {
		if _, err := leanSample(sample, msg); err == nil || !strings.Contains(err.Error(), "unreadable result from the lean child") {
			t.Errorf("report %q: %v", msg, err)
		}
	}
	w, _ := workload.Lookup("mutex")
	v, _ := w.Resolve(map[string]string{"threads": "2", "locks": "10"})
	_, read, err := w.Lean(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := read(0, []byte{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "not the") {
		t.Errorf("a result of the wrong size: %v", err)
	}
}
