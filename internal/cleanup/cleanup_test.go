package cleanup

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/ipcown"
)

// entry writes the journal entry of a dead contend (a pid above any
// pid_max) that was killed before its child made a set: the deadline
// long past, so that no set under its key can match it.
func entry(t *testing.T, dir string, key int32, exe string) string {
	t.Helper()
	now := time.Now().Unix()
	e := ipcown.Entry{PID: 0x3ffffff0, Boot: ipcown.BootID(), Key: key, NSems: 3, UID: os.Geteuid(),
		Time: now - 3600, Deadline: now - 3500, Exe: exe, IPCNS: ipcown.IPCNS()}
	p := filepath.Join(dir, fmt.Sprintf("%d-%08x.json", e.PID, uint32(e.Key)))
	b, _ := json.Marshal(e)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRun: in a journal of its own, an entry of a dead contend without a
// set is listed by neither mode, kept by --dry-run and dropped by a
// cleanup; an entry of another executable is left alone and counted.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ipcown.DirEnv, dir)
	mine := entry(t, dir, 0x0c0ffe91, "/opt/a/contend")
	theirs := entry(t, dir, 0x0c0ffe92, "/opt/b/contend")
	var b strings.Builder
	if err := Run(&b, Options{DryRun: true, Only: "/opt/a/contend"}); err != nil {
		t.Fatal(err)
	}
	want := "no semaphore set left by contend\nleft alone: 1 journal entry of killed runs of other contend executables than /opt/a/contend (or of older versions)\n"
	if b.String() != want {
		t.Errorf("--dry-run printed %q, want %q", b.String(), want)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("--dry-run removed the entry: %v", err)
	}
	b.Reset()
	if err := Run(&b, Options{Only: "/opt/a/contend"}); err != nil || b.String() != want {
		t.Errorf("cleanup: %v %q, want %q", err, b.String(), want)
	}
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the entry without a set was kept: %v", err)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Errorf("the other executable's entry was removed: %v", err)
	}
	b.Reset()
	if err := Run(&b, Options{}); err != nil || b.String() != "no semaphore set left by contend\n" {
		t.Errorf("without --binary: %v %q", err, b.String())
	}
	if _, err := os.Stat(theirs); !os.IsNotExist(err) {
		t.Errorf("without --binary every dead entry goes: %v", err)
	}
}

// TestOtherNSLine: the line of entries of another IPC namespace, with
// and without a process in it.
func TestOtherNSLine(t *testing.T) {
	for _, c := range []struct {
		n, pid int
		want   string
	}{
		{1, 0, "left 1 journal entry of runs killed in another IPC namespace (ipc:[4026531839]) alone: their semaphore sets are visible only there; no process in it was found: if it is gone, its sets went with it and the first cleanup after the next boot drops the entry"},
		{2, 0, "left 2 journal entries of runs killed in another IPC namespace (ipc:[4026531839]) alone: their semaphore sets are visible only there; no process in it was found: if it is gone, its sets went with it and the first cleanup after the next boot drops the entries"},
		{2, 77, "left 2 journal entries of runs killed in another IPC namespace (ipc:[4026531839]) alone: their semaphore sets are visible only there; run cleanup in that namespace: nsenter --ipc=/proc/77/ns/ipc contend cleanup"},
	} {
		if got := OtherNSLine(4026531839, c.n, c.pid); got != c.want {
			t.Errorf("%d %d:\n%s\nwant\n%s", c.n, c.pid, got, c.want)
		}
	}
}
