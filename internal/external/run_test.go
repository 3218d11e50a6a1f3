package external

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/evidence"
	"contend/internal/harness"
	"contend/internal/results"
	"contend/internal/testutil"
)

// buildC compiles src with the system compiler (see testutil.BuildC).
func buildC(t *testing.T, src string, flags ...string) string {
	return testutil.BuildC(t, src, flags...)
}

const progSrc = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ok";
	if (!strcmp(mode, "ok")) {
		printf("map=1048576\n");
		fflush(stdout);
		fprintf(stderr, "time = 4321 usecs\n");
		return 0;
	}
	if (!strcmp(mode, "twice"))
		printf("time = 1 usecs\ntime = 2 usecs\n");
	if (!strcmp(mode, "fail")) {
		printf("time = 9 usecs\nmmap: Cannot allocate memory\n");
		return 3;
	}
	if (!strcmp(mode, "crash")) {
		printf("about to crash\n");
		fflush(stdout);
		abort();
	}
	if (!strcmp(mode, "hang")) {
		if (fork() == 0) { /* a child in the same group, holding the pipe */
			sleep(100);
			_exit(0);
		}
		printf("hanging\n");
		fflush(stdout);
		sleep(100);
	}
	return 0;
}
`

func TestRunRep(t *testing.T) {
	bin := buildC(t, progSrc)
	p, _ := LookupPreset("faultme")
	run := func(mode string, timeout time.Duration) results.Rep {
		return RunRep(context.Background(), Program{Argv: []string{bin, mode}, Metrics: p.Metrics, Timeout: timeout})
	}
	r := run("ok", 0)
	if r.Status != results.StatusOK || r.Metrics.Get("time") != 4321e3 {
		t.Fatalf("ok: %+v", r)
	}
	if r.Output != "map=1048576\ntime = 4321 usecs\n" {
		t.Errorf("stdout and stderr not captured together: %q", r.Output)
	}
	for _, k := range []string{"real", "user", "sys", "cpu", "maxrss", "minflt", "majflt", "vcsw", "ivcsw"} {
		if _, ok := r.Metrics.Lookup(k); !ok {
			t.Errorf("process metric %s missing", k)
		}
	}
	r = run("twice", 0)
	if r.Status != results.StatusFailed || !strings.Contains(r.Error, "2 matches") || r.Output == "" {
		t.Errorf("twice: %+v", r)
	}
	r = run("none", 0)
	if r.Status != results.StatusFailed || !strings.Contains(r.Error, "no match") {
		t.Errorf("none: %+v", r)
	}
	r = run("fail", 0)
	if r.Status != results.StatusFailed || !strings.Contains(r.Error, "exited with status 3") ||
		!strings.Contains(r.Error, "Cannot allocate memory") || !strings.Contains(r.Output, "time = 9 usecs") {
		t.Errorf("fail: %+v", r)
	}
	if _, ok := r.Metrics.Lookup("time"); ok {
		t.Errorf("a failed repetition kept its extracted metric")
	}
	r = run("crash", 0)
	if r.Status != results.StatusFailed || !strings.Contains(r.Error, "killed by signal SIGABRT") {
		t.Errorf("crash: %+v", r)
	}
	start := time.Now()
	r = run("hang", 300*time.Millisecond)
	if r.Status != results.StatusTimeout || !strings.Contains(r.Output, "hanging") {
		t.Errorf("hang: %+v", r)
	}
	// Not a speed bound: a run that waited for the end of the pipe
	// returns when the child holding it ends by itself (100 s).
	if took := time.Since(start); took >= 100*time.Second {
		t.Errorf("the timed-out run took %s: it waited for the child holding its pipe", took)
	}
	r = RunRep(context.Background(), Program{Argv: []string{"/nonexistent/prog"}})
	if r.Status != results.StatusFailed || !strings.Contains(r.Error, "cannot start") {
		t.Errorf("missing program: %+v", r)
	}
	r = RunRep(context.Background(), Program{Argv: ShellArgv([]string{"echo contended:$((6*7)) >&2"}), Metrics: []Spec{mustSpec(t, `c=contended:(\d+)`)}})
	if r.Status != results.StatusOK || r.Metrics.Get("c") != 42 {
		t.Errorf("shell: %+v", r)
	}
}

// touchSrc touches argv[1] MiB of fresh memory, then exits.
const touchSrc = `#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	size_t n = (size_t)atoi(argv[1]) << 20;
	char *p = n ? malloc(n) : 0;
	if (n)
		memset(p, 1, n);
	return p && p[n / 2] != 1;
}
`

// TestMaxRSSIsTheProgramsOwn checks that an external program's maxrss is
// its own, as /usr/bin/time reports it, not contend's memory folded in at
// exec (the Go parent's high-water mark was 11 MiB for /bin/true).
func TestMaxRSSIsTheProgramsOwn(t *testing.T) {
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("no /usr/bin/time (apt-get install time)")
	}
	bin := buildC(t, touchSrc)
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	for _, mib := range []int{0, 64} {
		arg := strconv.Itoa(mib)
		out, err := exec.Command(timeBin, "-f", "%M", bin, arg).CombinedOutput()
		if err != nil {
			t.Fatalf("/usr/bin/time: %v\n%s", err, out)
		}
		lines := strings.Fields(string(out))
		kb, err := strconv.ParseFloat(lines[len(lines)-1], 64)
		if err != nil {
			t.Fatalf("/usr/bin/time output %q", out)
		}
		want := kb * 1024
		r := RunRep(context.Background(), Program{Argv: []string{bin, arg}})
		if r.Status != results.StatusOK {
			t.Fatalf("%d MiB: %+v", mib, r)
		}
		got := r.Metrics.Get("maxrss")
		if math.Abs(got-want) > 1<<20+0.1*want {
			t.Errorf("%d MiB: maxrss %.2f MiB, /usr/bin/time %.2f MiB (contend itself: %.2f MiB)",
				mib, got/(1<<20), want/(1<<20), float64(self.Maxrss)/1024)
		}
	}
}

// TestLaunchReport checks the parsing of the launcher's report lines.
func TestLaunchReport(t *testing.T) {
	lr := parseLaunch("done 768 5000 10 20 1032 67 1 2 3\n")
	if !lr.done || !lr.status.Exited() || lr.status.ExitStatus() != 3 || lr.metrics["real"] != 5000 ||
		lr.metrics["cpu"] != 30e3 || lr.metrics["maxrss"] != 1032*1024 || lr.metrics["ivcsw"] != 3 {
		t.Errorf("%+v", lr)
	}
	lr = parseLaunch("exec-error 2\ndone 32512 1 0 0 0 0 0 0 0\n")
	if lr.execErr != syscall.ENOENT {
		t.Errorf("%+v", lr)
	}
	if lr = parseLaunch("done 1 2\n"); lr.done {
		t.Errorf("short line accepted: %+v", lr)
	}
}

// TestEvidenceOncePerProgram: the collectors of the context are started
// on each program's launcher and stopped once per repetition, whatever
// way it ends: ok, failed, timed out, or a program that cannot be
// executed (before the one runner, that path never stopped them, and
// perf's counters of each such repetition stayed open).
func TestEvidenceOncePerProgram(t *testing.T) {
	bin := buildC(t, progSrc)
	c := &testutil.CountingCollector{}
	ctx, set := context.Background(), &evidence.Set{Active: []evidence.Collector{c}}
	p, _ := LookupPreset("faultme")
	for i, run := range []struct {
		argv    []string
		timeout time.Duration
		status  string
	}{
		{[]string{bin, "ok"}, 0, results.StatusOK},
		{[]string{bin, "fail"}, 0, results.StatusFailed},
		{[]string{bin, "hang"}, 300 * time.Millisecond, results.StatusTimeout},
		{[]string{"/nonexistent/prog"}, 0, results.StatusFailed},
	} {
		r := RunRep(ctx, Program{Argv: run.argv, Metrics: p.Metrics, Timeout: run.timeout, Evidence: set})
		if r.Status != run.status {
			t.Errorf("%v: %s (%s), want %s", run.argv, r.Status, r.Error, run.status)
		}
		if len(c.Starts) != i+1 || c.Stops != i+1 {
			t.Errorf("after %v: %d starts, %d stops; want %d of each", run.argv, len(c.Starts), c.Stops, i+1)
		}
		if run.status == results.StatusOK && r.Metrics.Get("k.test.starts") != float64(i+1) {
			t.Errorf("%v: evidence metric missing: %v", run.argv, r.Metrics)
		}
	}
}

// TestStartCause: a launcher that could not be started is described by
// the cause of exec's error, and by an unwrapped error itself (before,
// an evidence collector's error that wraps nothing read "<nil>").
func TestStartCause(t *testing.T) {
	_, err := os.StartProcess("/nonexistent/launcher", []string{"x"}, &os.ProcAttr{})
	if got := startCause(err); got != syscall.ENOENT {
		t.Errorf("exec error: %v, want ENOENT", got)
	}
	plain := errors.New("cannot let the child go after attaching the evidence collectors: ESRCH")
	if got := startCause(plain); got != plain {
		t.Errorf("unwrapped error: %v, want it as is", got)
	}
}

// TestLauncherWaitFailure: a launcher whose wait4 for the program fails
// (here SIGCHLD ignored, inherited from the process that started it: the
// kernel reaps the program itself and wait4 says ECHILD) reports a failed
// wait, not a program that could not be executed (it ran).
func TestLauncherWaitFailure(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := buildC(t, `#include <signal.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	(void)argc;
	signal(SIGCHLD, SIG_IGN);
	execv(TARGET, argv);
	return 126;
}`, `-DTARGET="`+self+`"`)
	old := harness.Executable
	defer func() { harness.Executable = old }()
	harness.Executable = func() (string, error) { return wrapper, nil }
	r := RunRep(context.Background(), Program{Argv: []string{"/bin/true"}})
	want := "true: the launcher could not wait for the program (wait4: no child processes): its exit status and process metrics are unknown"
	if r.Status != results.StatusFailed || r.Error != want {
		t.Errorf("status %q error %q, want %q", r.Status, r.Error, want)
	}
	if lr := parseLaunch("wait-error 10\n"); lr.waitErr != syscall.ECHILD || lr.execErr != 0 || lr.done {
		t.Errorf("wait-error line: %+v", lr)
	}
}
