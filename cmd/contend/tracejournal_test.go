package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/ipcown"
	"contend/internal/results"
)

// killDuringLock starts `contend exec --evidence locktrace` on a long child,
// waits until the child is traced, SIGKILLs contend, reaps it and kills
// the orphaned child. It returns contend's journal files.
func killDuringLock(t *testing.T, state func() map[string]string, before map[string]string) []string {
	t.Helper()
	dir := chdirTemp(t)
	cmd := contendCmd(t, "exec", "--evidence", "locktrace", "-n", "3", "-q", "--out", filepath.Join(dir, "r.json"), "--", "/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && child == 0; time.Sleep(10 * time.Millisecond) {
		child, _ = strconv.Atoi(strings.TrimSpace(state()["set_event_pid"]))
	}
	cmd.Process.Kill()
	cmd.Wait()
	if child > 0 {
		// Orphaned to this test process (a child subreaper).
		syscall.Kill(-child, syscall.SIGKILL)
		syscall.Kill(child, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(child, &ws, 0, nil)
	}
	if child == 0 {
		t.Fatalf("the child was never traced: %v", state())
	}
	if reflect.DeepEqual(state(), before) {
		t.Fatalf("tracefs unchanged after the SIGKILL: the test does not test anything")
	}
	jdir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}
	journal, _ := filepath.Glob(filepath.Join(jdir, fmt.Sprintf("tracefs-%d-*.json", cmd.Process.Pid)))
	if len(journal) != 1 {
		t.Fatalf("journal of the killed contend %d: %v; want one file", cmd.Process.Pid, journal)
	}
	return journal
}

// TestEvidenceLockAfterContendKilled: a SIGKILL of contend during
// --evidence locktrace leaves its tracefs settings journaled; `contend
// cleanup` restores them, and so does the next --evidence locktrace run
// (saying so in the header); a journal that cannot be restored makes the
// next run name `contend cleanup`.
func TestEvidenceLockAfterContendKilled(t *testing.T) {
	state := fakeLockTracefs(t)
	before := state()

	journal := killDuringLock(t, state, before)
	r := runCLI(t, "cleanup", "--dry-run")
	if !strings.Contains(r.stdout, "tracefs settings in "+os.Getenv("CONTEND_TRACEFS")) {
		t.Errorf("cleanup --dry-run does not list the tracefs settings: %q", r.stdout)
	}
	if reflect.DeepEqual(state(), before) {
		t.Errorf("cleanup --dry-run restored tracefs")
	}
	r = runCLI(t, "cleanup")
	if r.code != 0 || !strings.Contains(r.stdout, "restored the tracefs settings in ") {
		t.Errorf("cleanup: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if after := state(); !reflect.DeepEqual(after, before) {
		t.Errorf("after cleanup: tracefs not restored:\nbefore %q\nafter  %q", before, after)
	}
	if _, err := os.Stat(journal[0]); !os.IsNotExist(err) {
		t.Errorf("journal %s left after cleanup: %v", journal[0], err)
	}

	// The next run restores by itself, and says so on the terminal too
	// (not with -q).
	for _, quiet := range []bool{false, true} {
		journal = killDuringLock(t, state, before)
		out := filepath.Join(t.TempDir(), "r.json")
		args := []string{"exec", "--evidence", "locktrace", "-n", "1", "--out", out, "--", "/bin/true"}
		if quiet {
			args = append([]string{"exec", "-q"}, args[1:]...)
		}
		r := runCLI(t, args...)
		f, err := results.Read(out)
		if r.code != 0 || err != nil {
			t.Fatalf("the run after the kill: exit %d %v\n%s", r.code, err, r.stderr)
		}
		if !strings.HasPrefix(f.Evidence["locktrace"], "available; restored the tracefs settings in ") {
			t.Errorf("lock: %q; want it available with a note on the restored settings", f.Evidence["locktrace"])
		}
		said := strings.Contains(r.stderr, "warning: --evidence locktrace: restored the tracefs settings in ")
		if said == quiet {
			t.Errorf("quiet %v: the terminal says the restore %v, want %v; stderr %q", quiet, said, !quiet, r.stderr)
		}
		if after := state(); !reflect.DeepEqual(after, before) {
			t.Errorf("after the next run: tracefs not restored:\nbefore %q\nafter  %q", before, after)
		}
		if _, err := os.Stat(journal[0]); !os.IsNotExist(err) {
			t.Errorf("journal %s left after the next run: %v", journal[0], err)
		}
	}

	// A journal of a dead contend that cannot be restored (its file is a
	// directory): the run says tracefs is in use and names cleanup.
	dead := contendCmd(t, "help")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	jdir, _ := ipcown.Dir()
	bad := filepath.Join(jdir, fmt.Sprintf("tracefs-%d-1.json", dead.Process.Pid))
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	b, _ := json.Marshal(map[string]any{"pid": dead.Process.Pid, "start": 1, "boot": strings.TrimSpace(string(boot)),
		"root": os.Getenv("CONTEND_TRACEFS"), "settings": []map[string]string{{"file": "events", "value": "0\n"}}})
	if err := os.WriteFile(bad, b, 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(bad)
	f, _ := runEvidence(t, "exec", "--evidence", "locktrace", "-n", "1", "--", "/bin/true")
	if v := f.Evidence["locktrace"]; !strings.Contains(v, "not available: tracefs is in use") || !strings.Contains(v, "contend cleanup") {
		t.Errorf("lock: %q; want 'in use' naming contend cleanup", v)
	}
}
