package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"contend/internal/results"
	"contend/internal/workload"
)

func TestRunFaultmeSmall(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "fm.json")
	r := runCLI(t, "run", "faultme", "--threads", "3", "--mem", "4MiB", "--thp", "never", "-n", "2", "--warmup", "1", "--out", out, "--label", "small")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"faultme  threads=3 mem=4MiB", "repetitions: 2 (2 ok)", "time ", "pages ", "95% CI of median"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 3 || !f.Reps[0].Warmup || f.Reps[1].Warmup {
		t.Fatalf("want 1 warm-up + 2 reps, got %+v", f.Reps)
	}
	if !f.Complete || f.Label != "small" || f.Workload != "faultme" {
		t.Errorf("header: complete=%v label=%q workload=%q", f.Complete, f.Label, f.Workload)
	}
	if v, _ := f.ParamValue(0, "mem"); v != "4194304" {
		t.Errorf("mem recorded as %q", v)
	}
	for _, k := range []string{"kernel.release", "cpu.online", "thp.enabled", "contend.native", "cc.version", "go.version"} {
		if f.Env[k] == "" {
			t.Errorf("environment lacks %s", k)
		}
	}
	for _, rep := range f.Reps {
		if rep.Status != results.StatusOK {
			t.Fatalf("rep %d: %s %s", rep.Index, rep.Status, rep.Error)
		}
		if got := rep.Metrics.Get("pages"); got != 1024 {
			t.Errorf("pages %v, want 1024", got)
		}
		if rep.Metrics.Get("faults") < 1024 {
			t.Errorf("faults %v < pages", rep.Metrics.Get("faults"))
		}
		if rep.Metrics.Get("time") <= 0 || rep.Metrics.Get("real") < rep.Metrics.Get("time") {
			t.Errorf("time %v real %v: real must cover the timed region", rep.Metrics.Get("time"), rep.Metrics.Get("real"))
		}
	}
}

func TestRunFaultmeFormatOriginal(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "run", "faultme", "--threads", "2", "--mem", "1MiB", "-n", "3", "--format", "original", "--out", filepath.Join(dir, "o.json"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	re := regexp.MustCompile(`^map=1048576\ntime = \d+ usecs\nmap=1048576\ntime = \d+ usecs\nmap=1048576\ntime = \d+ usecs\n$`)
	if !re.MatchString(r.stdout) {
		t.Errorf("stdout is not the original's lines:\n%q", r.stdout)
	}
	if !strings.Contains(r.stderr, "repetitions: 3") {
		t.Errorf("summary not on stderr:\n%s", r.stderr)
	}
	s := runCLI(t, "show", "--format", "original", filepath.Join(dir, "o.json"))
	if s.stdout != r.stdout {
		t.Errorf("show --format original differs from the run:\n%s\nvs\n%s", s.stdout, r.stdout)
	}
}

func TestRunFaultmeJSON(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "256KiB", "-n", "1", "--format", "json", "--out", filepath.Join(dir, "j.json"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var f results.File
	if err := json.Unmarshal([]byte(r.stdout), &f); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if len(f.Reps) != 1 || f.Reps[0].Metrics.Get("pages") != 64 {
		t.Errorf("unexpected JSON result: %+v", f.Reps)
	}
}

func TestRunBadParameters(t *testing.T) {
	cases := []struct {
		args []string
		want string // in the one-line error
	}{
		{[]string{"--threads", "0"}, "--threads: 0 is out of range"},
		{[]string{"--threads", "-3"}, "--threads: -3 is out of range"},
		{[]string{"--threads", "many"}, `--threads: "many" is not an integer`},
		{[]string{"--threads", "99999999999999999999"}, "--threads"},
		{[]string{"--mem", "0"}, "--mem: 0 is out of range"},
		{[]string{"--mem", "ten"}, `--mem: "ten" is not a size`},
		{[]string{"--mem", "1PiB"}, "--mem"},
		{[]string{"--mem", "200TiB"}, "--mem: 200TiB is out of range"},
		{[]string{"--stride", "0"}, "--stride: 0 is out of range"},
		{[]string{"--mem", "1MiB", "--stride", "2MiB"}, "--stride: 2MiB is larger than --mem"},
		{[]string{"--thp", "sometimes"}, `--thp: "sometimes" is not a choice`},
		{[]string{"-n", "0"}, "--runs: 0 is out of range"},
		{[]string{"-n", "x"}, `--runs: "x" is not an integer`},
		{[]string{"--warmup", "-1"}, "--warmup: -1 is out of range"},
		{[]string{"--timeout", "0s"}, "--timeout"},
		{[]string{"--format", "xml"}, `--format: "xml" is not accepted`},
		{[]string{"--bogus", "1"}, "unknown flag --bogus"},
		{[]string{"extra"}, "takes no positional arguments"},
		{[]string{"--out", ""}, "--out: empty path"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := chdirTemp(t)
			// The base --mem unless the case gives its own (a flag
			// given twice with two values is refused).
			base := []string{"run", "faultme", "--mem", "1MiB"}
			if slices.Contains(c.args, "--mem") {
				base = base[:2]
			}
			assertUsageError(t, runCLI(t, append(base, c.args...)...), c.want, dir, nil)
		})
	}
}

func TestRunThreadLimit(t *testing.T) {
	chdirTemp(t)
	t.Setenv("CONTEND_FAKE_LIMITS", "threads-max=100")
	r := runCLI(t, "run", "faultme", "--mem", "1MiB", "--threads", "200")
	if r.code != 2 || !strings.Contains(r.stderr, "kernel.threads-max") {
		t.Errorf("exit %d, stderr %q: want 2 naming kernel.threads-max", r.code, r.stderr)
	}
}

func TestUnknownWorkloadAndCommand(t *testing.T) {
	r := runCLI(t, "run", "nosuch")
	if r.code != 2 || !strings.Contains(r.stderr, `no workload "nosuch"`) {
		t.Errorf("run nosuch: exit %d stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, "show")
	if r.code != 2 {
		t.Errorf("show without file: exit %d", r.code)
	}
	r = runCLI(t, "show", "/nonexistent/x.json")
	if r.code != 2 || !strings.Contains(r.stderr, "no such result file") {
		t.Errorf("show missing: exit %d stderr %q", r.code, r.stderr)
	}
}

func TestRunTimeoutRecorded(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "t.json")
	// 1 GiB of faults cannot finish in 1 ms.
	r := runCLI(t, "run", "faultme", "--threads", "2", "--mem", "1GiB", "-n", "2", "--timeout", "1ms", "--out", out)
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (no repetition succeeded); stderr %s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 2 || f.Reps[0].Status != results.StatusTimeout || f.Reps[1].Status != results.StatusTimeout {
		t.Fatalf("want two timed-out reps, got %+v", f.Reps)
	}
	if !strings.Contains(r.stdout, "2 timeout") {
		t.Errorf("summary does not count timeouts:\n%s", r.stdout)
	}
}

// TestInterruptKeepsFinishedReps sends SIGINT to a running contend and
// checks the exit status, the file and that no child is left.
func TestInterruptKeepsFinishedReps(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "i.json")
	cmd := contendCmd(t, "run", "faultme", "--threads", "2", "--mem", "64MiB", "-n", "100000", "--out", out, "--quiet")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watch := watchRun(cmd.Process.Pid)
	// Wait until some repetitions are in the file.
	waitReps(t, out, 2)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("exit %v (%v), want 130; stderr %s", cmd.ProcessState.ExitCode(), err, stderr.String())
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("result file unreadable after SIGINT: %v", err)
	}
	ok := f.Counts(0)[results.StatusOK]
	if ok < 2 || f.Complete {
		t.Errorf("ok reps %d complete %v: want >= 2 finished reps and an incomplete file", ok, f.Complete)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr: %s", stderr.String())
	}
	watch.assertGone(t)
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestKilledParentKeepsFile SIGKILLs contend mid-run: the file must hold
// every finished repetition and parse.
func TestKilledParentKeepsFile(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "k.json")
	cmd := contendCmd(t, "run", "faultme", "--threads", "2", "--mem", "32MiB", "-n", "100000", "--out", out, "--quiet")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watch := watchRun(cmd.Process.Pid)
	waitReps(t, out, 3)
	cmd.Process.Kill()
	cmd.Wait()
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("result file unreadable after SIGKILL: %v", err)
	}
	if len(f.Reps) < 3 {
		t.Errorf("only %d reps survived", len(f.Reps))
	}
	for _, r := range f.Reps {
		if r.Status != results.StatusOK || r.Metrics.Get("pages") != 8192 {
			t.Errorf("rep %d corrupt: %+v", r.Index, r)
		}
	}
	// The child dies with its parent (PR_SET_PDEATHSIG): every process
	// and process group the watch saw must be gone (assertGone waits for
	// that, a bounded time).
	watch.assertGone(t)
}

// assertNoChildren fails if any process still has ppid as parent. ppid
// must be alive (the test process itself): the children of a process that
// has exited are reparented, so this cannot see them; use watchRun for
// those.
func assertNoChildren(t *testing.T, ppid int) {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[1] == itoa(ppid) && f[0] != "Z" {
			t.Errorf("process %s (state %s) is still a child of %d", e.Name(), f[0], ppid)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCompletionAndHelp(t *testing.T) {
	for _, sh := range []string{"bash", "zsh"} {
		r := runCLI(t, "completion", sh)
		if r.code != 0 || !strings.Contains(r.stdout, completeArg) {
			t.Errorf("completion %s: %d %q", sh, r.code, r.stdout)
		}
	}
	if r := runCLI(t, "completion", "fish"); r.code != 2 {
		t.Errorf("completion fish: exit %d", r.code)
	}
	r := runCLI(t, "help", "faultme")
	for _, want := range []string{"Steven Rostedt", "parameters", "--threads [400]", "metrics:", "lower is better"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help faultme lacks %q", want)
		}
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("help line of %d columns: %q", n, line)
		}
	}
	if r := runCLI(t, "help", "run"); r.code != 0 || !strings.Contains(r.stdout, "contend run") {
		t.Errorf("help run: %d %q", r.code, r.stdout)
	}
	if r := runCLI(t, "help", "nosuch"); r.code != 2 {
		t.Errorf("help nosuch: exit %d", r.code)
	}
	if r := runCLI(t, "list"); r.code != 0 || !strings.Contains(r.stdout, "faultme:") {
		t.Errorf("list: %d %q", r.code, r.stdout)
	}
	r = runCLI(t, "env")
	if r.code != 0 || !strings.Contains(r.stdout, "kernel.release") {
		t.Errorf("env: %d %q", r.code, r.stdout)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("env line of %d columns: %q", n, line)
		}
	}
}

func TestListFits80Columns(t *testing.T) {
	r := runCLI(t, "list")
	for _, line := range strings.Split(r.stdout, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("list line of %d columns: %q", n, line)
		}
	}
}

// TestListUsageColumn: every parameter's usage in list starts at column
// 28, under the others; a name too long for its column is on a line of its
// own (--thread-stack-size [64KiB] pushed its usage 2 columns right).
func TestListUsageColumn(t *testing.T) {
	r := runCLI(t, "list")
	lines := strings.Split(r.stdout, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "  --") {
			continue
		}
		if strings.HasSuffix(line, "]") { // the name alone: usage below
			if i+1 == len(lines) || !strings.HasPrefix(lines[i+1], strings.Repeat(" ", 27)) || lines[i+1][27] == ' ' {
				t.Errorf("list: %q is not followed by its usage at column 28", line)
			}
			continue
		}
		if len(line) < 28 || line[26] != ' ' || line[27] == ' ' {
			t.Errorf("list: the usage of %q does not start at column 28", line)
		}
	}
}

// TestListDefaultsAsRunsPrint: list and a workload's --help show a
// default as a run prints its value (faultme's stride 4KiB); they showed
// the raw tag text, --stride [4096].
func TestListDefaultsAsRunsPrint(t *testing.T) {
	if r := runCLI(t, "list"); r.code != 0 || !strings.Contains(r.stdout, "--stride [4KiB] ") || !strings.Contains(r.stdout, "--mem [10GiB] ") {
		t.Errorf("list: %d, want --stride [4KiB] and --mem [10GiB]:\n%s", r.code, r.stdout)
	}
	if r := runCLI(t, "run", "faultme", "--help"); r.code != 0 || !strings.Contains(r.stdout, "(default 4KiB)") {
		t.Errorf("run faultme --help: %d, want (default 4KiB):\n%s", r.code, r.stdout)
	}
}

func TestHelpFlagExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"run", "--help"}, {"run", "faultme", "--help"}, {"ab", "faultme", "-h"}} {
		r := runCLI(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "USAGE") {
			t.Errorf("%v: exit %d, stdout %.80q stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestMemoryCheckAndForce(t *testing.T) {
	dir := chdirTemp(t)
	t.Setenv("CONTEND_FAKE_LIMITS", "no-zero-page=1,memavailable=1000000")
	r := runCLI(t, "run", "faultme", "--threads", "2", "--mem", "4MiB", "-n", "1")
	if r.code != 2 || !strings.Contains(r.stderr, "zero page is disabled") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("exit %d stderr %q: want a refusal naming --force", r.code, r.stderr)
	}
	if fs := listFiles(t, dir); len(fs) != 0 {
		t.Errorf("files left: %v", fs)
	}
	out := filepath.Join(dir, "f.json")
	r = runCLI(t, "run", "faultme", "--threads", "2", "--mem", "4MiB", "-n", "1", "--force", "--out", out)
	if r.code != 0 || !strings.Contains(r.stderr, "--force given") {
		t.Errorf("--force: exit %d stderr %q", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil || len(f.Warnings) == 0 || !strings.Contains(strings.Join(f.Warnings, "\n"), "no zero page") {
		t.Errorf("the warning is not recorded in the file: %v %v", err, f)
	}
}

func TestVerboseAndQuiet(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "256KiB", "-n", "2", "--warmup", "1", "--verbose", "--out", filepath.Join(dir, "v.json"))
	if r.code != 0 || strings.Count(r.stderr, "repetition ") != 3 || !strings.Contains(r.stderr, "repetition 1 warm-up: time ") {
		t.Errorf("--verbose: exit %d stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, "run", "faultme", "--threads", "1", "--mem", "256KiB", "-n", "1", "--quiet", "--out", filepath.Join(dir, "q.json"))
	if r.code != 0 || r.stderr != "" {
		t.Errorf("--quiet: exit %d stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "run", "faultme", "--quiet", "--verbose"); r.code != 2 {
		t.Errorf("--quiet --verbose: exit %d", r.code)
	}
}

// TestFaultmeThreadCreationFails limits the address space so that the
// thread stacks cannot all be had: contend refuses up front, and when that
// check is bypassed, the repetition fails naming pthread_create and the
// errno, and nothing is left running.
func TestFaultmeThreadCreationFails(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit(1)")
	}
	dir := chdirTemp(t)
	run := func(env ...string) (*exec.Cmd, string, *runWatch) {
		out := filepath.Join(dir, "p.json")
		cmd := contendCmd(t, "run", "faultme", "--threads", "1000", "--mem", "1MiB", "-n", "1", "--out", out, "--quiet")
		// 8 MiB stacks (ulimit -s 8192) whatever the caller's limit:
		// the check counts each thread's stack at that size.
		cmd.Args = append([]string{prlimit, "--as=3221225472", "--stack=8388608", "--"}, cmd.Args...)
		cmd.Path = prlimit
		cmd.Env = append(cmd.Env, env...)
		cmd.Dir = dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		// The repetition fails within milliseconds, before a polling
		// watch may look (under load it missed it): the run's session
		// finds whatever is left of it.
		startInSession(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		watch := watchRun(cmd.Process.Pid)
		cmd.Wait()
		return cmd, stderr.String(), watch
	}
	cmd, stderr, refused := run()
	close(refused.stop) // nothing ran: nothing to check
	<-refused.done
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(stderr, "RLIMIT_AS") {
		t.Errorf("up-front check: exit %d, stderr %q", cmd.ProcessState.ExitCode(), stderr)
	}
	cmd, stderr, watch := run("CONTEND_FAKE_LIMITS=as=0")
	if cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("exit %d, want 1; stderr %q", cmd.ProcessState.ExitCode(), stderr)
	}
	f, err := results.Read(filepath.Join(dir, "p.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 1 || f.Reps[0].Status != results.StatusFailed ||
		!strings.Contains(f.Reps[0].Error, "pthread_create") || !strings.Contains(f.Reps[0].Error, "EAGAIN") || !strings.Contains(f.Reps[0].Error, "created") {
		t.Errorf("want a failed repetition naming pthread_create, EAGAIN and the count created: %+v", f.Reps)
	}
	watch.assertGone(t)
}

// TestShowFits80Columns shows every seed fixture and a real run of every
// built-in workload's summary shape: no line may be wider than a mail.
func TestShowFits80Columns(t *testing.T) {
	// Beside the other parallel tests: its runs are processes of their
	// own (a run in this process would sweep up, as its leftovers, the
	// processes other tests start meanwhile).
	t.Parallel()
	files, _ := filepath.Glob("testdata/seeds/*.json")
	if len(files) == 0 {
		t.Fatal("no seed fixtures")
	}
	dir := t.TempDir()
	for _, w := range workload.All() {
		if w.Quick == nil {
			continue
		}
		name, args := w.Name, w.Quick
		out := filepath.Join(dir, name+".json")
		if b, err := contendCmd(t, append(append([]string{"run", name}, args...), "-n", "6", "--quiet", "--out", out)...).CombinedOutput(); err != nil {
			t.Fatalf("run %s: %v %s", name, err, b)
		}
		files = append(files, out)
	}
	for _, f := range files {
		r := runCLI(t, "show", f)
		if r.code != 0 {
			t.Errorf("show %s: exit %d %s", f, r.code, r.stderr)
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if n := len([]rune(line)); n > 80 {
				t.Errorf("show %s: line of %d columns: %q", f, n, line)
			}
		}
	}
}

// TestHelpMakesNoClaimAboutOneMachine: the help text is read on every
// machine, so it says what a kind of machine showed, never what "this VM"
// does (help faultme said "this VM: pvm_no_zero_page", wrong wherever the
// zero page is mapped).
func TestHelpMakesNoClaimAboutOneMachine(t *testing.T) {
	topics := [][]string{{"help"}, {"help", "evidence"}}
	for _, c := range newApp(io.Discard, io.Discard).Commands {
		topics = append(topics, []string{"help", c.Name})
	}
	for _, w := range workload.Names() {
		topics = append(topics, []string{"help", w})
	}
	bad := regexp.MustCompile(`(?i)\bthis (VM|virtual machine|2-core|2-vCPU|box)\b|:\s*pvm_no_zero_page`)
	for _, args := range topics {
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		text := strings.Join(strings.Fields(r.stdout), " ")
		if m := bad.FindString(text); m != "" {
			t.Errorf("%v says %q: a claim about one machine", args, m)
		}
	}
}
