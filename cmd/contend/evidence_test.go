package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/results"
)

func TestEvidenceUsageErrors(t *testing.T) {
	cases := map[string][]string{
		"run":        {"run", "faultme", "--mem", "1MiB", "--evidence", "bogus"},
		"ab":         {"ab", "faultme", "--mem", "1MiB", "--b", "--threads 2", "--evidence", "perf,nope"},
		"sweep":      {"sweep", "faultme", "--mem", "1MiB", "--threads", "1,2", "--evidence", "none,lock"},
		"exec":       {"exec", "--evidence", "perf,", "--", "/bin/true"},
		"ab exec":    {"ab", "exec", "--evidence", "x", "--a", "/bin/true", "--b", "/bin/false"},
		"verify":     {"verify", "faultme", "--mem", "1MiB", "--evidence", "bogus", "--", "/bin/true"},
		"ab + trace": {"ab", "faultme", "--mem", "1MiB", "--trace-events", "lock", "--evidence", "lock"},
		"empty":      {"run", "faultme", "--mem", "1MiB", "--evidence", ""},
	}
	fakeTrace(t)
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			dir := chdirTemp(t)
			before := listFiles(t, dir)
			assertUsageError(t, runCLI(t, args...), "--evidence", dir, before)
		})
	}
}

// runEvidence runs contend with args and returns the result file.
func runEvidence(t *testing.T, args ...string) (*results.File, result) {
	t.Helper()
	dir := chdirTemp(t)
	out := filepath.Join(dir, "r.json")
	flags := []string{"-q", "--out", out}
	var full []string
	for i, a := range args {
		if a == "--" {
			full = append(append(full, flags...), args[i:]...)
			flags = nil
			break
		}
		full = append(full, a)
	}
	r := runCLI(t, append(full, flags...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	return f, r
}

func needEvidence(t *testing.T, f *results.File, names ...string) {
	t.Helper()
	for _, n := range names {
		if !strings.HasPrefix(f.Evidence[n], "available") {
			t.Skipf("%s %s", n, f.Evidence[n])
		}
	}
}

// TestEvidenceMutexSwitchesAndMigrations: 16 threads fighting for one
// mutex on this machine's CPUs switch context and migrate, and the
// evidence shows it in the file, in show, and in the header.
func TestEvidenceMutexSwitchesAndMigrations(t *testing.T) {
	f, r := runEvidence(t, "run", "mutex", "--threads", "16", "--locks", "20000", "--variant", "lock", "-n", "2", "--all")
	needEvidence(t, f, "sched")
	if _, ok := f.Evidence["perf"]; ok {
		t.Errorf("perf counters are opt-in, yet in the default set: %v", f.Evidence)
	}
	for _, rep := range f.Reps {
		m := rep.Metrics.Map()
		// The 16 threads and main, and the Go runtime's threads of the
		// child; its CPU time is rusage's (the child leaves no orphan);
		// its switches before the exit records at most rusage's.
		if m["k.threads"] < 17 || m["k.tree_cpu"] < m["cpu"] || m["k.tree_cpu"] > m["cpu"]+2000 || m["k.csw"] > m["vcsw"]+m["ivcsw"] {
			t.Errorf("repetition %d: threads %v, CPU time %v (rusage %v), switches %v (rusage %v)", rep.Index, m["k.threads"], m["k.tree_cpu"], m["cpu"], m["k.csw"], m["vcsw"]+m["ivcsw"])
		}
		if _, ok := m["k.sys.irq_resched"]; !ok {
			t.Errorf("repetition %d lacks the system-wide interrupts", rep.Index)
		}
	}
	if _, ok := f.Metric("k.csw"); !ok {
		t.Error("k.csw not described in the header")
	}
	if !strings.Contains(r.stdout, "kernel evidence") || !strings.Contains(r.stdout, "k.csw") {
		t.Errorf("summary lacks the evidence section:\n%s", r.stdout)
	}
}

// TestEvidenceMigrations: a shell moved between CPUs by taskset (its
// own children) migrates, and perf counts it.
func TestEvidenceMigrations(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("no taskset")
	}
	script := "for i in 1 2 3 4 5; do taskset -pc 0 $$ >/dev/null; taskset -pc 1 $$ >/dev/null; done"
	f, _ := runEvidence(t, "exec", "--evidence", "perf", "-n", "1", "--", "/bin/sh", "-c", script)
	needEvidence(t, f, "perf")
	if m := f.Reps[0].Metrics.Map(); m["k.cpu_migrations"] < 5 || m["k.context_switches"] < 10 {
		t.Errorf("migrations %v (want at least 5), context switches %v", m["k.cpu_migrations"], m["k.context_switches"])
	}
}

// TestEvidenceOsimCountedInFull: osim's forked worker processes are
// counted (perf: inherit; sched: the exit records of every process, and
// rusage): k.tree_cpu is the rusage CPU time of the child and the workers
// it waited for, to the microsecond of rusage's timevals (it was the
// taskstats CPU time, 0.55-0.65 of it on a quiet machine: the records lack
// each thread's last slice and the address-space teardown); the
// switches before the exit records are at most rusage's. The workers are
// in perf's inherited counters: their switches (osim's worker_vcsw and
// worker_ivcsw, from their own rusage) are in k.context_switches, but for
// the last of each. The task
// clock is not held to rusage's CPU time from below: under other processes'
// load a switch-heavy child's task clock falls to 0.69-0.96 of it (six
// spinning shells on 2 CPUs; 1.01 for a CPU-bound shell loop), the
// switches' cost being in the scheduler's CPU time and not perf's.
func TestEvidenceOsimCountedInFull(t *testing.T) {
	f, _ := runEvidence(t, "run", "osim", "--sems", "2", "--tasks", "4", "--loops", "20000", "-n", "1", "--evidence", "perf,faults,sched")
	needEvidence(t, f, "perf", "faults", "sched")
	if len(f.Evidence) != 3 {
		t.Errorf("collectors %v, want perf, faults and sched only", f.Evidence)
	}
	m := f.Reps[0].Metrics.Map()
	if m["k.task_clock"] < 0.5*m["cpu"] || m["k.task_clock"] > 1.2*m["cpu"]+2e6 {
		t.Errorf("task clock %v ns, rusage cpu %v ns", m["k.task_clock"], m["cpu"])
	}
	// Each worker's last switch, at its exit after perf has read its
	// counter, is in its rusage only: at least the workers' less one each.
	if w := m["worker_vcsw"] + m["worker_ivcsw"]; w == 0 || m["k.context_switches"] < w-4 || m["k.context_switches"] > m["vcsw"]+m["ivcsw"] {
		t.Errorf("perf switches %v: want the workers' %v less one per worker (4) and at most rusage's %v", m["k.context_switches"], w, m["vcsw"]+m["ivcsw"])
	}
	if csw := m["vcsw"] + m["ivcsw"]; m["k.csw"] > csw {
		t.Errorf("taskstats switches %v, more than rusage's %v", m["k.csw"], csw)
	}
	if m["k.tree_cpu"] < m["cpu"] || m["k.tree_cpu"] > m["cpu"]+2000 {
		t.Errorf("k.tree_cpu %v ns, rusage cpu %v ns: want the same to 2 µs", m["k.tree_cpu"], m["cpu"])
	}
	if m["k.minor_faults"] < 0.9*m["minflt"] {
		t.Errorf("perf minor faults %v, rusage %v", m["k.minor_faults"], m["minflt"])
	}
	if m["k.threads"] < 5 {
		t.Errorf("threads %v: the child and its 4 workers each have an exit record", m["k.threads"])
	}
	if _, ok := m["k.sys.pgfault"]; ok {
		t.Error("system collector ran although not asked for")
	}
}

func TestEvidenceNone(t *testing.T) {
	f, _ := runEvidence(t, "exec", "--evidence", "none", "-n", "1", "--", "/bin/true")
	if f.Evidence != nil {
		t.Errorf("header %v", f.Evidence)
	}
	for k := range f.Reps[0].Metrics.All() {
		if strings.HasPrefix(k, "k.") {
			t.Errorf("metric %s with --evidence none", k)
		}
	}
}

// TestEvidenceNotAvailable: collectors the kernel refuses (injected) are
// named with the reason in the header, the run succeeds, and their
// metrics are absent.
func TestEvidenceNotAvailable(t *testing.T) {
	t.Setenv("CONTEND_TEST_EVIDENCE", "no-perf,no-tracefs,no-delayacct,no-bpf")
	f, r := runEvidence(t, "exec", "--evidence", "lock,perf", "-n", "1", "--", "/bin/true")
	if !strings.Contains(f.Evidence["perf"], "not available: perf_event_open: no permission") {
		t.Errorf("perf: %q", f.Evidence["perf"])
	}
	if !strings.Contains(f.Evidence["lock"], "not available: BPF: BPF not allowed (injected); tracefs: tracefs is not mounted") {
		t.Errorf("lock: %q", f.Evidence["lock"])
	}
	if strings.HasPrefix(f.Evidence["sched"], "available") && !strings.Contains(f.Evidence["sched"], "delay accounting off") {
		t.Errorf("sched: %q", f.Evidence["sched"])
	}
	if strings.Contains(r.stderr, "tracefs") {
		t.Errorf("warning with --quiet:\n%s", r.stderr)
	}
	r = runCLI(t, "exec", "--evidence", "lock", "-n", "2", "--out", filepath.Join(t.TempDir(), "r.json"), "--", "/bin/true")
	if r.code != 0 || strings.Count(r.stderr, "tracefs is not mounted") != 1 {
		t.Errorf("exit %d; want one warning for the lock collector asked for:\n%s", r.code, r.stderr)
	}
	m := f.Reps[0].Metrics.Map()
	if _, ok := m["k.task_clock"]; ok {
		t.Error("perf metric recorded although not available")
	}
	if _, ok := m["k.sys.pgfault"]; !ok {
		t.Error("the available system collector recorded nothing")
	}
}

// fakeLockTracefs makes a tracefs-like tree with every file the lock
// collector touches and returns a function reading their contents.
func fakeLockTracefs(t *testing.T) func() map[string]string {
	root := t.TempDir()
	files := map[string]string{
		"events/lock/contention_begin/enable": "0\n", "events/lock/contention_end/enable": "1\n",
		"set_event_pid": "", "options/event-fork": "0\n", "tracing_on": "1\n", "trace": "", "set_event": "",
	}
	for f, v := range files {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(v), 0o644)
	}
	t.Setenv("CONTEND_TRACEFS", root)
	return func() map[string]string {
		out := map[string]string{}
		for f := range files {
			if f != "trace" {
				b, _ := os.ReadFile(filepath.Join(root, f))
				out[f] = string(b)
			}
		}
		return out
	}
}

// TestEvidenceLockRestoredAfterChildSignals: the tracefs settings are
// restored when the child is killed by SIGKILL or SIGINT, and when
// contend itself is interrupted.
func TestEvidenceLockRestoredAfterChildSignals(t *testing.T) {
	state := fakeLockTracefs(t)
	before := state()
	for _, sig := range []string{"KILL", "INT"} {
		dir := chdirTemp(t)
		r := runCLI(t, "exec", "--evidence", "locktrace", "-n", "2", "-q", "--out", filepath.Join(dir, "r.json"), "--", "/bin/sh", "-c", "kill -"+sig+" $$")
		if r.code == 0 || !strings.Contains(r.stderr, "no repetition succeeded") {
			t.Errorf("SIG%s: exit %d %s", sig, r.code, r.stderr)
		}
		f, err := results.Read(filepath.Join(dir, "r.json"))
		if err != nil {
			t.Fatal(err)
		}
		if f.Evidence["locktrace"] != "available" || !strings.Contains(f.Reps[0].Error, "SIG"+sig) {
			t.Errorf("SIG%s: lock %q, error %q", sig, f.Evidence["locktrace"], f.Reps[0].Error)
		}
		if _, ok := f.Reps[0].Metrics.Lookup("k.lock.mutex.count"); !ok {
			t.Errorf("SIG%s: the killed repetition has no lock evidence", sig)
		}
		if after := state(); !reflect.DeepEqual(after, before) {
			t.Errorf("SIG%s of the child: tracefs not restored:\nbefore %q\nafter  %q", sig, before, after)
		}
	}
	// contend interrupted while its child runs.
	dir := chdirTemp(t)
	cmd := contendCmd(t, "exec", "--evidence", "locktrace", "-n", "3", "-q", "--out", filepath.Join(dir, "r.json"), "--", "/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && strings.TrimSpace(state()["set_event_pid"]) == "" {
		time.Sleep(10 * time.Millisecond)
	}
	if strings.TrimSpace(state()["options/event-fork"]) != "1" {
		t.Errorf("during the run: %v", state())
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if after := state(); !reflect.DeepEqual(after, before) {
		t.Errorf("contend interrupted: tracefs not restored:\nbefore %q\nafter  %q", before, after)
	}
}

// TestHelpEvidence: the evidence topic lists every collector with its
// metrics, says which are the defaults, and says that only lock starts
// the child stopped inside the parent's clock.
func TestHelpEvidence(t *testing.T) {
	r := runCLI(t, "help", "evidence")
	if r.code != 0 {
		t.Fatalf("help evidence: %+v", r)
	}
	for _, want := range []string{"sched (default)", "system (default)", "\nperf\n", "\nlock\n", "k.runq_delay", "k.lock.mmap_read.count", "only lock, locktrace, offcpu and profile start the child stopped"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help evidence lacks %q", want)
		}
	}
	if strings.Contains(r.stdout, "perf (default)") {
		t.Errorf("help evidence calls perf a default:\n%s", r.stdout)
	}
}
