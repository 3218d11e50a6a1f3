package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCleanupRemovesKilledRunsTempDirs: a 'run wis' SIGKILLed mid-run
// leaves its compile directory (contend-wis-*) behind; 'contend cleanup'
// lists it (--dry-run) and removes it, and leaves a live run's.
func TestCleanupRemovesKilledRunsTempDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the runs' and cleanup's os.TempDir
	dir := t.TempDir()
	test := filepath.Join(dir, "spin.c")
	os.WriteFile(test, []byte(`char *testcase_description = "spin";
void testcase(unsigned long long *iterations, unsigned long nr) { for (;;) (*iterations)++; }
`), 0o644)
	start := func(name string) (*os.Process, <-chan error, string) {
		run := contendCmd(t, "run", "wis", "--test", test, "--tasks", "1", "--duration", "20s", "-n", "50", "-q",
			"--out", filepath.Join(dir, name+".jsonl"))
		before, _ := filepath.Glob(filepath.Join(tmp, "contend-wis-*"))
		if err := run.Start(); err != nil {
			t.Fatal(err)
		}
		ended := make(chan error, 1)
		go func() { ended <- run.Wait() }()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			now, _ := filepath.Glob(filepath.Join(tmp, "contend-wis-*"))
			if len(now) > len(before) {
				// Its first repetition under way: the compile is done.
				if _, err := os.Stat(filepath.Join(dir, name+".jsonl")); err == nil {
					return run.Process, ended, newOf(now, before)
				}
			}
		}
		run.Process.Kill()
		t.Fatalf("run %s made no compile directory in 60s", name)
		return nil, nil, ""
	}
	live, liveEnded, liveDir := start("live")
	defer func() {
		live.Signal(syscall.SIGINT)
		<-liveEnded
	}()
	killed, killedEnded, killedDir := start("killed")
	killed.Signal(syscall.SIGKILL)
	<-killedEnded
	if _, err := os.Stat(killedDir); err != nil {
		t.Fatalf("the killed run's %s: %v (it should stay until a cleanup)", killedDir, err)
	}
	// A process forked by the killed run and not yet exec'ed (its
	// repetition child, started as the result file appeared) shares the
	// owner lock until it dies of its parent death signal, a moment
	// later: the directory is stale once every process of the run is gone.
	var r result
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r = runCLI(t, "cleanup", "--dry-run")
		if strings.Contains(r.stdout, killedDir) || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(r.stdout, "temporary directory "+killedDir+" (left by a contend that is gone)") || strings.Contains(r.stdout, liveDir) {
		t.Errorf("cleanup --dry-run lists %q, want %s and not %s", r.stdout, killedDir, liveDir)
	}
	r = runCLI(t, "cleanup")
	if r.code != 0 || !strings.Contains(r.stdout, "removed the temporary directory "+killedDir) {
		t.Errorf("cleanup: exit %d, %q: want %s removed", r.code, r.stdout, killedDir)
	}
	if _, err := os.Stat(killedDir); !os.IsNotExist(err) {
		t.Errorf("%s left after cleanup: %v", killedDir, err)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("cleanup removed the live run's %s: %v", liveDir, err)
	}
}

// newOf returns the path of now that is not in before.
func newOf(now, before []string) string {
	old := map[string]bool{}
	for _, p := range before {
		old[p] = true
	}
	for _, p := range now {
		if !old[p] {
			return p
		}
	}
	return ""
}
