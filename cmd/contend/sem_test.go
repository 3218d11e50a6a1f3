package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/harness"
	"contend/internal/ipcown"
	"contend/internal/results"
)

// Tests of the SysV semaphore workloads osim and semop-multi: short real
// runs, the original output, bad input and machine limits, and that nothing
// leaks when a repetition is killed, contend is interrupted or a timeout
// expires.

func TestRunOsimSmall(t *testing.T) {
	dir := chdirTemp(t)
	before := semSet(t)
	out := filepath.Join(dir, "o.json")
	r := runCLI(t, "run", "osim", "--sems", "2", "--tasks", "5", "--loops", "2001", "--busy-in", "3", "--busy-out", "4", "-n", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "each task loops 401 times, 2005 loops in all") {
		t.Errorf("no rounding warning:\n%s", r.stderr)
	}
	for _, want := range []string{"osim  sems=2 tasks=5 loops=2001 busy-in=3 busy-out=4", "repetitions: 2 (2 ok)", "per_loop ", "worker_vcsw "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range f.Reps {
		if rep.Status != results.StatusOK {
			t.Fatalf("rep %d: %s %s", rep.Index, rep.Status, rep.Error)
		}
		m := rep.Metrics.Map()
		if m["loops"] != 5*401 || m["loops_per_task"] != 401 {
			t.Errorf("loops %v per task %v, want 2005 and 401", m["loops"], m["loops_per_task"])
		}
		if m["time"] <= 0 || m["per_loop"] != m["time"]/m["loops"] || m["per_loop_orig"] > m["per_loop"] {
			t.Errorf("time %v per_loop %v per_loop_orig %v", m["time"], m["per_loop"], m["per_loop_orig"])
		}
		// The child waited for its workers: its rusage includes theirs.
		if m["vcsw"] < m["worker_vcsw"] || m["ivcsw"] < m["worker_ivcsw"] {
			t.Errorf("child context switches %v/%v below the workers' %v/%v", m["vcsw"], m["ivcsw"], m["worker_vcsw"], m["worker_ivcsw"])
		}
	}
	assertNoNewSems(t, before)
}

func TestRunOsimPositionalFormatOriginal(t *testing.T) {
	dir := chdirTemp(t)
	before := semSet(t)
	out := filepath.Join(dir, "o.json")
	// Positional as the original took them; flags may follow.
	r := runCLI(t, "run", "osim", "3", "4", "1001", "7", "9", "--format", "original", "-n", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	one := `osim <sems> <tasks> <loops> <busy-in> <busy-out>
osim: using a semaphore array with 3 semaphores\.
osim: using 4 tasks\.
osim: each thread loops 251 times
osim: each thread busyloops 9 loops outside and 7 loops inside\.
total execution time: \d+\.\d{6} seconds for 1004 loops
per loop execution time: \d+\.\d{3} usec
`
	if !regexp.MustCompile(`^` + one + one + `$`).MatchString(r.stdout) {
		t.Errorf("stdout is not the original's lines:\n%s", r.stdout)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, want string }{{"sems", "3"}, {"tasks", "4"}, {"loops", "1001"}, {"busy-in", "7"}, {"busy-out", "9"}} {
		if v, _ := f.ParamValue(0, p.name); v != p.want {
			t.Errorf("%s recorded as %q, want %q", p.name, v, p.want)
		}
	}
	s := runCLI(t, "show", "--format", "original", out)
	if s.stdout != r.stdout {
		t.Errorf("show --format original differs from the run:\n%s\nvs\n%s", s.stdout, r.stdout)
	}
	assertNoNewSems(t, before)
}

func TestRunSemopMultiSmall(t *testing.T) {
	dir := chdirTemp(t)
	before := semSet(t)
	out := filepath.Join(dir, "s.json")
	// Positional <threads> <semaphores>, as the original took them.
	r := runCLI(t, "run", "semop-multi", "3", "2", "--duration", "200ms", "-n", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"semop-multi  threads=3 sems=2 duration=200ms pin=false", "repetitions: 2 (2 ok)", "ops_per_sec ", "jain ", "min_max "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range f.Reps {
		if rep.Status != results.StatusOK {
			t.Fatalf("rep %d: %s %s", rep.Index, rep.Status, rep.Error)
		}
		counts := rep.Series["ops_per_thread"]
		if len(counts) != 3 {
			t.Fatalf("ops_per_thread %v, want 3 counts", counts)
		}
		sum := 0.0
		for _, c := range counts {
			sum += c
		}
		m := rep.Metrics.Map()
		if sum != m["ops"] || m["ops"] <= 0 || int64(m["ops"])%2 != 0 {
			t.Errorf("ops %v, sum of threads %v: want equal, even, positive", m["ops"], sum)
		}
		if m["ops_per_sec"] != float64(int64(m["ops"]/0.2)) {
			t.Errorf("ops_per_sec %v, want ops/0.2 truncated (%v)", m["ops_per_sec"], m["ops"]/0.2)
		}
		if m["jain"] <= 0 || m["jain"] > 1 || m["min_max"] < 0 || m["min_max"] > 1 || m["cpus"] < 1 {
			t.Errorf("jain %v min_max %v cpus %v", m["jain"], m["min_max"], m["cpus"])
		}
	}
	assertNoNewSems(t, before)
}

func TestRunSemopMultiFormatOriginal(t *testing.T) {
	// Beside the long parallel tests: its 1 s run is a process of its
	// own (a run in this process would sweep, as leftovers of its
	// repetition, the processes other tests start meanwhile).
	t.Parallel()
	dir := t.TempDir()
	cmd := contendCmd(t, "run", "semop-multi", "--threads", "2", "--sems", "1", "--duration", "1s", "--pin", "--format", "original", "-n", "1", "--out", filepath.Join(dir, "s.json"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	re := regexp.MustCompile(`^cpus \d+, threads: 2, semaphores: 1, test duration: 1 secs\ntotal operations: (\d+), ops/sec (\d+)\n$`)
	m := re.FindStringSubmatch(string(stdout))
	if m == nil {
		t.Fatalf("stdout is not the original's lines:\n%q", stdout)
	}
	if m[1] != m[2] {
		t.Errorf("1 s run: ops/sec %s must equal total %s", m[2], m[1])
	}
}

func TestSemBadParameters(t *testing.T) {
	cases := []struct {
		args []string
		fake string // CONTEND_FAKE_LIMITS
		want string // in the one-line error
	}{
		{[]string{"osim", "--sems", "0"}, "", "--sems: 0 is out of range"},
		{[]string{"osim", "--tasks", "0"}, "", "--tasks: 0 is out of range"},
		{[]string{"osim", "--loops", "0"}, "", "--loops: 0 is out of range"},
		{[]string{"osim", "--busy-in", "-1"}, "", "--busy-in: -1 is out of range"},
		{[]string{"osim", "--busy-out", "-5"}, "", "--busy-out: -5 is out of range"},
		{[]string{"osim", "64", "256"}, "", "osim takes 5 positional arguments <sems> <tasks> <loops> <busy-in> <busy-out>, got 2"},
		{[]string{"osim", "64", "256", "1000", "0", "0", "1"}, "", "osim takes 5 positional arguments"},
		{[]string{"osim", "64", "256", "1000", "0", "0", "--tasks", "3"}, "", "--tasks given both as a flag and as positional argument 2"},
		{[]string{"osim", "--tasks", "40000"}, "", "--tasks: 40000 exceeds SEMVMX = 32767"},
		{[]string{"osim", "--sems", "10"}, "semmsl=10", "--sems: 10 (a set of 11 semaphores) exceeds kernel.sem SEMMSL = 10"},
		{[]string{"osim", "--sems", "4"}, "semmni=8,sem-sets=8", "kernel.sem SEMMNI = 8"},
		{[]string{"osim", "--sems", "20"}, "semmns=100,sems-in-use=90", "--sems: 21 semaphores exceed what kernel.sem SEMMNS = 100 leaves"},
		{[]string{"osim", "--tasks", "200"}, "threads-max=100", "--tasks: 200 threads or processes exceed kernel.threads-max = 100"},
		{[]string{"semop-multi", "--threads", "0"}, "", "--threads: 0 is out of range"},
		{[]string{"semop-multi", "--sems", "0"}, "", "--sems: 0 is out of range"},
		{[]string{"semop-multi", "--duration", "0"}, "", "--duration: 0 is out of range"},
		{[]string{"semop-multi", "--duration", "-1s"}, "", "--duration: -1s is out of range"},
		{[]string{"semop-multi", "--duration", "soon"}, "", `--duration: "soon" is not a duration`},
		{[]string{"semop-multi", "--threads", "200"}, "threads-max=100", "--threads: 200 threads or processes exceed kernel.threads-max = 100"},
		{[]string{"semop-multi", "--sems", "11"}, "semmsl=10", "--sems: 11 exceeds kernel.sem SEMMSL = 10"},
		{[]string{"semop-multi", "--threads", "150", "--sems", "1"}, "semvmx=300", "above SEMVMX = 300"},
		{[]string{"semop-multi", "1", "2", "3"}, "", "semop-multi takes 2 positional arguments <threads> <sems>, got 3"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " ")+" "+c.fake, func(t *testing.T) {
			dir := chdirTemp(t)
			if c.fake != "" {
				t.Setenv("CONTEND_FAKE_LIMITS", c.fake)
			}
			assertUsageError(t, runCLI(t, append([]string{"run"}, c.args...)...), c.want, dir, nil)
		})
	}
}

func TestListSaysReconstructed(t *testing.T) {
	r := runCLI(t, "list")
	i := strings.Index(r.stdout, "semop-multi:")
	if i < 0 || !strings.Contains(r.stdout[i:], "RECONSTRUCTED") {
		t.Errorf("list does not say semop-multi is reconstructed:\n%s", r.stdout)
	}
	for _, want := range []string{"--tasks [256]", "--loops [1000000]", "--threads [online CPUs]", "--duration [30s]"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list lacks %q", want)
		}
	}
}

// leakRun starts contend with args in a fresh directory (result file
// r.json), and returns the command, the result path and a watch over its
// processes.
func leakRun(t *testing.T, args ...string) (cmdOut *strings.Builder, wait func() int, out string, w *runWatch) {
	t.Helper()
	dir := chdirTemp(t)
	out = filepath.Join(dir, "r.json")
	cmd := contendCmd(t, append(append([]string{"run"}, args...), "--out", out, "--quiet")...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	startInSession(cmd) // assertGone needs no luck in the watch's polling
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A test that stops early must not leave the run going: SIGTERM
	// makes contend clean up after its repetition.
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	})
	w = watchRun(cmd.Process.Pid)
	return &stderr, func() int { cmd.Wait(); return cmd.ProcessState.ExitCode() }, out, w
}

// testChildKilled SIGKILLs the repetition child of the second (or, if
// that one ended before it could be stopped, a later one) of four
// repetitions in the middle of its run: stopped first (freezeMidRun), so
// that it cannot have ended before the SIGKILL (under load it had: the
// repetition was ok, and a later one killed).
func testChildKilled(t *testing.T, workers bool, args ...string) {
	before := semSet(t)
	stderr, wait, out, w := leakRun(t, append(args, "-n", "4")...)
	waitReps(t, out, 1)
	child := freezeMidRun(t, w.root, before, workers)
	// The file holds every repetition before the stopped one: each is
	// written before the next child starts.
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	killed := len(f.Reps)
	if err := syscall.Kill(child, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := wait(); code != 0 {
		t.Errorf("exit %d, want 0 (three repetitions ok); stderr %s", code, stderr)
	}
	f, err = results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var st, want []string
	for i, r := range f.Reps {
		st = append(st, r.Status)
		if i == killed {
			want = append(want, results.StatusFailed)
		} else {
			want = append(want, results.StatusOK)
		}
	}
	if len(f.Reps) != 4 || strings.Join(st, " ") != strings.Join(want, " ") || !strings.Contains(f.Reps[killed].Error, "SIGKILL") {
		t.Errorf("statuses %v, want %v, the failure (repetition %d) naming SIGKILL: %q", st, want, killed+1, f.Reps[min(killed, len(f.Reps)-1)].Error)
	}
	w.assertGone(t)
	assertNoNewSems(t, before)
}

func TestOsimChildKilledMidRun(t *testing.T) {
	testChildKilled(t, true, "osim", "2", "8", "300000", "0", "0")
}

func TestSemopMultiChildKilledMidRun(t *testing.T) {
	testChildKilled(t, false, "semop-multi", "--threads", "2", "--sems", "1", "--duration", "400ms")
}

// testInterrupted sends SIGINT to contend in the middle of a repetition
// after the first two.
func testInterrupted(t *testing.T, workers bool, args ...string) {
	before := semSet(t)
	stderr, wait, out, w := leakRun(t, append(args, "-n", "1000")...)
	waitReps(t, out, 2)
	// Stopped, the child cannot end before the SIGINT lands (under load
	// it had: the last repetition was ok).
	freezeMidRun(t, w.root, before, workers)
	if err := syscall.Kill(w.root, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := wait(); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("result file unreadable after SIGINT: %v", err)
	}
	if ok := f.Counts(0)[results.StatusOK]; ok < 2 || f.Complete {
		t.Errorf("%d ok repetitions, complete %v: want the finished ones and an incomplete file", ok, f.Complete)
	}
	if last := f.Reps[len(f.Reps)-1]; last.Status != results.StatusInterrupted {
		t.Errorf("last repetition %s, want %s", last.Status, results.StatusInterrupted)
	}
	w.assertGone(t)
	assertNoNewSems(t, before)
}

func TestOsimInterruptedMidRun(t *testing.T) {
	testInterrupted(t, true, "osim", "2", "8", "200000", "0", "0")
}

func TestSemopMultiInterruptedMidRun(t *testing.T) {
	testInterrupted(t, false, "semop-multi", "--threads", "2", "--sems", "1", "--duration", "300ms")
}

// testTimeout lets --timeout expire on every repetition.
func testTimeout(t *testing.T, args ...string) {
	before := semSet(t)
	stderr, wait, out, w := leakRun(t, append(args, "-n", "2", "--timeout", "400ms")...)
	if code := wait(); code != 1 {
		t.Errorf("exit %d, want 1 (no repetition succeeded); stderr %s", code, stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 2 || f.Reps[0].Status != results.StatusTimeout || f.Reps[1].Status != results.StatusTimeout {
		t.Errorf("want two timed-out repetitions, got %+v", f.Reps)
	}
	w.assertGone(t)
	assertNoNewSems(t, before)
}

func TestOsimTimeout(t *testing.T) {
	testTimeout(t, "osim", "2", "8", "2000000000", "0", "0")
}

func TestSemopMultiTimeout(t *testing.T) {
	testTimeout(t, "semop-multi", "--threads", "2", "--sems", "1", "--duration", "1h")
}

// TestUnreportedSetRemoved kills the repetition child between semget and
// the report of the set's id, the one moment the parent cannot know it
// from the child: the parent finds the set by the key the child's pid gives
// it and removes it.
func TestUnreportedSetRemoved(t *testing.T) {
	for _, args := range [][]string{
		{"semop-multi", "--threads", "2", "--sems", "1", "--duration", "100ms"},
		{"osim", "2", "4", "1000", "0", "0"},
	} {
		t.Run(args[0], func(t *testing.T) {
			before := semSet(t)
			dir := chdirTemp(t)
			t.Setenv("CONTEND_TEST_INJECT", "die-after-semget")
			out := filepath.Join(dir, "r.json")
			r := runCLI(t, append(append([]string{"run"}, args...), "-n", "2", "--out", out, "--quiet")...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1 (every repetition killed); stderr %q", r.code, r.stderr)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, rep := range f.Reps {
				if rep.Status != results.StatusFailed || !strings.Contains(rep.Error, "SIGKILL") {
					t.Errorf("repetition %d: %s %q, want failed by SIGKILL", rep.Index, rep.Status, rep.Error)
				}
			}
			assertNoNewSems(t, before)
		})
	}
}

// plantOldKeys creates foreign sets under the keys the old scheme gave
// the children of the next n pids (0x63000000 | pid), as ftok(path, 'c')
// may give any program.
func plantOldKeys(t *testing.T, n, nsems int) map[int]uint32 {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/kernel/ns_last_pid")
	if err != nil {
		t.Skipf("no ns_last_pid: %v", err)
	}
	last, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	b, _ = os.ReadFile("/proc/sys/kernel/pid_max")
	max, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	sets := map[int]uint32{}
	for i := 1; i <= n; i++ {
		pid := last + i
		if max > 0 && pid >= max {
			pid = 300 + pid - max
		}
		key := uint32(0x63000000 | pid&0xffffff)
		if id, ok := foreignSet(t, key, nsems); ok {
			sets[id] = key
		}
	}
	return sets
}

// TestForeignSetsSurviveRuns puts foreign sets under the keys the children
// of a run would get: under the key forced with CONTEND_TEST_SEM_KEY (as if
// another program took the key between contend's check and the child's
// semget), and under the old scheme's keys of the next pids. A run must
// never remove them.
func TestForeignSetsSurviveRuns(t *testing.T) {
	for _, c := range []struct {
		args  []string
		nsems int
	}{
		{[]string{"osim", "2", "4", "1000", "0", "0"}, 3},
		{[]string{"semop-multi", "--threads", "2", "--sems", "1", "--duration", "50ms"}, 1},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			dir := chdirTemp(t)
			planted := plantOldKeys(t, 600, c.nsems)
			key := uint32(0x0bad0000 | os.Getpid()&0xffff)
			id, ok := foreignSet(t, key, c.nsems)
			if !ok {
				t.Skipf("key %#x is taken", key)
			}
			planted[id] = key
			plantGuard(t, planted)
			before := semSet(t)
			w := watchRun(os.Getpid()) // this test's children: the old scheme's keys are theirs
			ours := func() map[int]bool {
				w.scan()
				w.mu.Lock()
				defer w.mu.Unlock()
				m := map[int]bool{}
				for p := range w.pids {
					m[p] = true
				}
				return m
			}
			defer func() { close(w.stop); <-w.done }()

			// Normal runs: a free key each.
			out := filepath.Join(dir, "r.json")
			r := runCLI(t, append(append([]string{"run"}, c.args...), "-n", "3", "--out", out, "--quiet")...)
			if r.code != 0 {
				t.Errorf("exit %d: %s", r.code, r.stderr)
			}
			assertSetsExist(t, planted, ours())

			// The key is taken: the child refuses it and fails.
			t.Setenv("CONTEND_TEST_SEM_KEY", strconv.Itoa(int(key)))
			out = filepath.Join(dir, "taken.json")
			r = runCLI(t, append(append([]string{"run"}, c.args...), "-n", "2", "--out", out, "--quiet")...)
			if r.code != 1 {
				t.Errorf("exit %d with a taken key, want 1; stderr %s", r.code, r.stderr)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, rep := range f.Reps {
				if rep.Status != results.StatusFailed || !strings.Contains(rep.Error, fmt.Sprintf("key 0x%08x (another program created a set with this key", key)) || !strings.Contains(rep.Error, "EEXIST") {
					t.Errorf("repetition %d: %s %q, want failed naming the taken key", rep.Index, rep.Status, rep.Error)
				}
			}
			assertSetsExist(t, planted, ours())
			if r := runCLI(t, "cleanup"); r.code != 0 {
				t.Errorf("cleanup: %d %s", r.code, r.stderr)
			}
			assertSetsExist(t, planted, ours())
			assertNoNewSems(t, before)
		})
	}
}

// TestCleanupAfterContendKilled SIGKILLs contend in the middle of an osim
// repetition and runs cleanup at once, while contend is still a zombie
// (the test has not waited for it): the set it left is found through its
// journal entry and removed; foreign sets, one with an old-scheme key of a
// dead pid among them, are not touched.
func TestCleanupAfterContendKilled(t *testing.T) {
	foreign := map[int]uint32{}
	for _, key := range []uint32{0x63fffffe, 0x63000000 | 0x3fff00} {
		if id, ok := foreignSet(t, key, 3); ok {
			foreign[id] = key
		}
	}
	plantGuard(t, foreign)
	before := semSet(t)
	_, wait, _, w := leakRun(t, "osim", "2", "8", "2000000000", "0", "0", "-n", "1")
	waitMidRun(t, w.root, before, true)
	// The run's set: the one under the key of contend's journal entry.
	var left []string
	dir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}
	journal, _ := filepath.Glob(filepath.Join(dir, strconv.Itoa(w.root)+"-*.json"))
	sets, _ := ipcown.Sets()
	for _, s := range sets {
		if len(journal) == 1 && strings.HasSuffix(journal[0], fmt.Sprintf("-%08x.json", uint32(s.Key))) {
			left = append(left, strconv.Itoa(s.ID))
		}
	}
	if len(left) != 1 {
		t.Fatalf("journal %v, sets under its key %v: want one entry and one set", journal, left)
	}
	if err := syscall.Kill(w.root, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if p, ok := procOf(w.root); ok && p.state == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("contend %d did not become a zombie", w.root)
		}
	}
	r := runCLI(t, "cleanup", "--dry-run")
	for _, id := range left {
		if !strings.Contains(r.stdout, "semaphore set "+id+" ") {
			t.Errorf("cleanup --dry-run does not list set %s left by the killed contend: %q", id, r.stdout)
		}
	}
	r = runCLI(t, "cleanup")
	if r.code != 0 {
		t.Errorf("cleanup: exit %d: %s", r.code, r.stderr)
	}
	for _, id := range left {
		if !strings.Contains(r.stdout, "removed semaphore set "+id+" ") {
			t.Errorf("cleanup did not remove set %s left by the killed contend: %q", id, r.stdout)
		}
	}
	w.mu.Lock()
	assertSetsExist(t, foreign, w.pids)
	w.mu.Unlock()
	if _, err := os.Stat(journal[0]); !os.IsNotExist(err) {
		t.Errorf("journal entry %s left: %v", journal[0], err)
	}
	if r := runCLI(t, "cleanup"); r.code != 0 || !strings.Contains(r.stdout, "no semaphore set left by contend") {
		t.Errorf("second cleanup: %d %q", r.code, r.stdout)
	}
	wait()
	// The child and its workers were orphaned; this test process is a
	// child subreaper (package harness), so they are its zombies now.
	w.mu.Lock()
	for pg := range w.pgrps {
		harness.KillGroup(pg)
	}
	w.mu.Unlock()
	w.assertGone(t)
	assertNoNewSems(t, before)
}

// TestOsimWorkerKilled SIGKILLs one osim worker in the middle of a long
// repetition: the repetition fails at once naming the worker and the
// signal, not at the timeout, and nothing of it is left.
func TestOsimWorkerKilled(t *testing.T) {
	before := semSet(t)
	const timeout = 10 * time.Minute
	stderr, wait, out, w := leakRun(t, "osim", "2", "8", "2000000000", "0", "0", "-n", "1", "--timeout", timeout.String())
	child := waitMidRun(t, w.root, before, true)
	workers := descendants(procs(), child)
	if len(workers) == 0 {
		t.Fatal("no worker")
	}
	worker := workers[len(workers)/2].pid
	if err := syscall.Kill(worker, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// A repetition that waited for the timeout would be a timeout (status,
	// error), checked below; no bound on the time it took.
	if code := wait(); code != 1 {
		t.Errorf("exit %d, want 1; stderr %s", code, stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`osim: worker \d of 8 \(pid ` + strconv.Itoa(worker) + `\) was killed by signal SIGKILL`)
	if len(f.Reps) != 1 || f.Reps[0].Status != results.StatusFailed || !want.MatchString(f.Reps[0].Error) || strings.Contains(f.Reps[0].Error, "timeout") || strings.Contains(f.Reps[0].Error, "failed:") {
		t.Errorf("repetitions %+v, want one failed, naming worker %d and SIGKILL, no timeout, no \"failed:\" errno", f.Reps, worker)
	}
	w.assertGone(t)
	assertNoNewSems(t, before)
}

// procOf returns the process pid, if it exists.
func procOf(pid int) (proc, bool) {
	for _, p := range procs() {
		if p.pid == pid {
			return p, true
		}
	}
	return proc{}, false
}
