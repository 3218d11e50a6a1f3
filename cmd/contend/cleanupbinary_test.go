package main

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

// TestCleanupBinaryLeavesOtherContends: cleanup --binary PATH removes the
// journal entries that runs of PATH left, and leaves (and counts) those of
// any other contend executable, and of versions that recorded none: the
// playbook's cleanup after one host's run neither removes nor blames on
// that host another contend's leftovers on the machine.
func TestCleanupBinaryLeavesOtherContends(t *testing.T) {
	dir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}
	self := ipcown.Self()
	if self == "" {
		t.Skip("os.Executable fails here")
	}
	other := filepath.Join(t.TempDir(), "contend")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const dead = 0x3fffffe0 // above any pid_max
	write := func(i int, exe string) string {
		e := ipcown.Entry{PID: dead + i, Boot: ipcown.BootID(), Key: int32(0x0c1ea000 + i), NSems: 1, UID: os.Geteuid(),
			Time: time.Now().Unix(), Exe: exe, IPCNS: ipcown.IPCNS()}
		b, _ := json.Marshal(e)
		p := filepath.Join(dir, fmt.Sprintf("%d-%08x.json", e.PID, uint32(e.Key)))
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(p) })
		return p
	}
	mine, theirs, old := write(0, self), write(1, ipcown.SameFile(other)), write(2, "")
	r := runCLI(t, "cleanup", "--binary", self)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the entry of this binary's run is left: %v", err)
	}
	for _, p := range []string{theirs, old} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("an entry of another contend was removed: %v", err)
		}
	}
	if !strings.Contains(r.stdout, "left alone: 2 journal entries of killed runs of other contend executables than "+self) {
		t.Errorf("cleanup --binary does not say what it left:\n%s", r.stdout)
	}
	if r := runCLI(t, "cleanup", "--binary", filepath.Join(t.TempDir(), "nosuch")); r.code != 2 || !strings.Contains(r.stderr, "--binary") {
		t.Errorf("--binary of a missing file: exit %d %s", r.code, r.stderr)
	}
	// Without --binary, cleanup takes every dead run's entry, as before.
	if r := runCLI(t, "cleanup"); r.code != 0 || strings.Contains(r.stdout, "left alone") {
		t.Errorf("cleanup: exit %d\n%s", r.code, r.stdout)
	}
	for _, p := range []string{theirs, old} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("cleanup without --binary left %s: %v", p, err)
		}
	}
}
