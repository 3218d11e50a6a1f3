package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/bind"
	"contend/internal/harness"
	"contend/internal/ipcown"
	"contend/internal/results"
	"contend/internal/workload"
)

// faultWorkloads are the quick configurations of every workload that
// has one (Workload.Quick): a repetition takes a fraction of a second, so
// that faults land before, during and after IPC creation, forks and
// thread creation. sem tells a workload that creates a SysV set.
func faultWorkloads() (wls [][]string, sem map[string]bool) {
	sem = map[string]bool{}
	for _, w := range workload.All() {
		if w.Quick != nil {
			wls = append(wls, append([]string{w.Name}, w.Quick...))
			sem[w.Name] = w.SemSet != nil
		}
	}
	return wls, sem
}

// TestFaultInjection starts runs of every workload (and A/B runs with a
// tracefs switch) and, at a random moment, SIGKILLs the repetition child
// and then interrupts contend, or sends SIGINT or SIGTERM to contend
// directly. Afterwards no semaphore set and no process of the run may be
// left, the result file must read and hold only intact repetitions, and
// the tracefs events must be back as they were. Every workload meets
// every fault once (the cover, about 10 s; the delays drawn at random),
// then random trials follow until CONTEND_FAULT_BUDGET (a duration, 0 by
// default) has passed; CONTEND_FAULT_SEED replays a run.
func TestFaultInjection(t *testing.T) {
	if testing.Short() {
		t.Skip("fault injection runs for about 10 s")
	}
	// Beside the other parallel tests: its trials mostly wait (the
	// delays, the signals, the reaps), and each checks only what its own
	// contend leaves (its processes, its journal entries and sets: the
	// watch is scoped to its contend, semWatch.under; its tracefs).
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CONTEND_FAULT_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	budget := time.Duration(0)
	if s := os.Getenv("CONTEND_FAULT_BUDGET"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			budget = d
		}
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("seed %d (CONTEND_FAULT_SEED=%d replays it), budget %s", seed, seed, budget)
	root, enable := fakeTraceDir(t)
	// Foreign sets: one under the key some trials force on their
	// children (as if another program took it after contend's check), one
	// under an old-scheme key (0x63 << 24 | a dead pid). No trial may
	// remove them.
	foreignKey := uint32(0x0fa00000 | os.Getpid()&0xffff)
	foreign := map[int]uint32{}
	for _, key := range []uint32{foreignKey, 0x63fffffd} {
		if id, ok := foreignSet(t, key, 3); ok {
			foreign[id] = key
		}
	}
	plantGuard(t, foreign)
	start := time.Now()
	trials := map[string]int{}
	wls, sem := faultWorkloads()
	if len(wls) < 5 {
		t.Fatalf("%d workloads with a quick configuration, want every built-in one", len(wls))
	}
	actions := []string{"kill-child", "sigint", "sigterm", "ab-sigint", "ab-kill-child"}
	cover := len(wls) * len(actions)
	for i := 0; i < cover || time.Since(start) < budget; i++ {
		wl := wls[i%len(wls)]
		action := actions[rng.IntN(len(actions))]
		if i < cover {
			action = actions[i/len(wls)] // every pair once
		}
		delay := time.Duration(rng.IntN(400)) * time.Millisecond
		var env []string
		if rng.IntN(3) == 0 && sem[wl[0]] {
			env = []string{fmt.Sprintf("CONTEND_TEST_SEM_KEY=%d", foreignKey)}
		}
		// Drawn every trial from the seeded rng, so that the seed
		// replays the whole sequence.
		pause := time.Duration(rng.IntN(100)) * time.Millisecond
		name := fmt.Sprintf("%d-%s-%s-%s", i, wl[0], action, delay)
		if env != nil {
			name += "-taken-key"
		}
		ok := t.Run(name, func(t *testing.T) {
			faultTrial(t, wl, action, delay, pause, enable, append(env, "CONTEND_TRACEFS="+root))
			assertSetsExist(t, foreign, nil)
		})
		trials[action]++
		if !ok {
			t.Logf("trial %s failed: CONTEND_FAULT_SEED=%d replays it", name, seed)
			break
		}
	}
	total := 0
	for _, n := range trials {
		total += n
	}
	t.Logf("%d fault trials in %s: %v", total, time.Since(start).Round(time.Second), trials)
}

func faultTrial(t *testing.T, wl []string, action string, delay, pause time.Duration, enable func(string) string, env []string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	before := semSet(t)
	args := append([]string{"run"}, wl...)
	if strings.HasPrefix(action, "ab-") {
		args = append([]string{"ab"}, wl...)
		args = append(args, "--trace-events", "lock")
	}
	args = append(args, "-n", "1000", "--out", out, "--quiet")
	cmd := contendCmd(t, args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The leak check counts only the sets this contend (or a process
	// below it) journaled: the tests beside this one (TestREADMEExamples'
	// osim examples, TestRunSemopMultiFormatOriginal...) descend from the
	// test process too, and their sets in flight are not this trial's.
	// Named before the wait below can reap it.
	before.under(t, cmd.Process.Pid)
	w := watchRun(cmd.Process.Pid)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()

	time.Sleep(delay)
	signalled := syscall.SIGINT
	switch action {
	case "kill-child", "ab-kill-child":
		if child := repChild(cmd.Process.Pid); child > 0 {
			syscall.Kill(child, syscall.SIGKILL)
			time.Sleep(pause)
		}
		syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
	case "sigterm":
		signalled = syscall.SIGTERM
		syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
	default:
		syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("contend did not stop within 30 s of %s; stderr %s", action, stderr.String())
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	// A signal that arrives before contend installed its handler (in the
	// first milliseconds) ends it the default way; then it had not
	// started a repetition yet.
	early := ws.Signaled() && ws.Signal() == signalled
	if !early && cmd.ProcessState.ExitCode() != 130 {
		t.Errorf("exit %v, want 130 after %s; stderr %s", ws, action, stderr.String())
	}
	if f, err := results.Read(out); err == nil {
		for _, r := range f.Reps {
			if r.Status == results.StatusOK {
				if _, ok := r.Metrics.Lookup(f.Primary); !ok {
					t.Errorf("repetition %d is ok but has no %s", r.Index, f.Primary)
				}
			}
		}
		if f.Complete {
			t.Errorf("an interrupted run is marked complete")
		}
	} else if !os.IsNotExist(unwrapNotExist(out)) {
		t.Errorf("result file after %s: %v", action, err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	w.mu.Lock()
	saw := len(w.pids)
	w.mu.Unlock()
	if saw > 0 {
		w.assertGone(t)
	} else {
		close(w.stop)
		<-w.done
	}
	assertNoNewSems(t, before)
	if enable("contention_begin") != "0" || enable("contention_end") != "1" {
		t.Errorf("tracefs events not restored: begin %s end %s", enable("contention_begin"), enable("contention_end"))
	}
}

// unwrapNotExist returns the error of stat(path), to tell "no file" from
// "a broken file".
func unwrapNotExist(path string) error {
	_, err := os.Stat(path)
	return err
}

// repChild returns the pid of contend's running repetition child, 0 if
// there is none right now.
func repChild(root int) int {
	for _, p := range procs() {
		if p.ppid != root || p.state == "Z" {
			continue
		}
		if isRepChild(p.pid) {
			return p.pid
		}
	}
	return 0
}

// isRepChild says whether pid is a repetition child: `contend __child` (Go)
// or `contend __lean` (C before the Go runtime: mutex, osim).
func isRepChild(pid int) bool {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	argv := strings.Split(string(b), "\x00")
	return len(argv) > 1 && (argv[1] == harness.ChildArg || argv[1] == bind.LeanArg)
}

// TestSemWatchSeesOnlyOwnSets checks the leak check of the fault and
// SysV tests (semWatch, assertNoNewSems): a set that a run of this test
// leaves (contend SIGKILLed mid-repetition, so that nothing removes it)
// is reported, while a set another program makes meanwhile (another test
// suite's contend: its journal entry, of a live process that is not
// ours, and its set) is not; the whole-machine comparison the check used
// before reported both, so concurrent suites made it flake.
func TestSemWatchSeesOnlyOwnSets(t *testing.T) {
	w := semSet(t)
	dir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}
	// Another suite's run: its journal entry (pid 1, alive and not a
	// descendant of this test), then its set under the entry's key.
	var otherID int
	var otherKey uint32
	for i := 0; i < 100 && otherKey == 0; i++ {
		k := rand.Uint32()&0x0fffffff | 0x10000000
		entry := filepath.Join(dir, fmt.Sprintf("1-%08x.json", k))
		if err := os.WriteFile(entry, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(entry) })
		if id, ok := foreignSet(t, k, 2); ok {
			otherID, otherKey = id, k
		}
	}
	if otherKey == 0 {
		t.Fatal("no free key for the other suite's set")
	}
	// This test's run, killed with its set in place: a real leak.
	_, wait, _, rw := leakRun(t, "osim", "2", "8", "2000000000", "0", "0", "-n", "1")
	waitMidRun(t, rw.root, w, true)
	mine := w.ours(t, rw.root)
	if len(mine) != 1 {
		t.Fatalf("sets of the run: %v, want one", mine)
	}
	if err := syscall.Kill(rw.root, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait()
	t.Cleanup(func() {
		ipcown.Remove(mine[0].ID)
		entries, _ := filepath.Glob(filepath.Join(dir, strconv.Itoa(rw.root)+"-*.json"))
		for _, e := range entries {
			os.Remove(e)
		}
	})
	left := w.leaked(t)
	if len(left) != 1 || left[0].ID != mine[0].ID {
		t.Errorf("leaked %v, want the killed run's set %d (key %#x) only", left, mine[0].ID, uint32(mine[0].Key))
	}
	now := semIDs(t)
	if !now[strconv.Itoa(otherID)] {
		t.Errorf("the other suite's set %d is gone: the test shows nothing", otherID)
	}
	// The old check: every set not listed before, the other suite's too.
	var machineWide []string
	for id := range now {
		if n, _ := strconv.Atoi(id); !w.before[n] {
			machineWide = append(machineWide, id)
		}
	}
	if !slices.Contains(machineWide, strconv.Itoa(otherID)) || !slices.Contains(machineWide, strconv.Itoa(mine[0].ID)) {
		t.Errorf("new sets on the machine %v, want the other suite's %d and the leak %d", machineWide, otherID, mine[0].ID)
	}
	// The orphaned child and its workers: this process reaps them.
	rw.mu.Lock()
	for pg := range rw.pgrps {
		harness.KillGroup(pg)
	}
	rw.mu.Unlock()
	rw.assertGone(t)
	// Once the leak is removed, the check passes with the other set there.
	if err := ipcown.Remove(mine[0].ID); err != nil {
		t.Fatal(err)
	}
	assertNoNewSems(t, w)
}
