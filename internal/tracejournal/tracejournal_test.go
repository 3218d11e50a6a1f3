package tracejournal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/ipcown"
)

// useDirs gives the test its own journal directory and a fake tracefs
// root with one setting file.
func useDirs(t *testing.T) (root, file string) {
	d := t.TempDir()
	old := dir
	dir = func() (string, error) { return d, nil }
	t.Cleanup(func() { dir = old })
	root = t.TempDir()
	os.Mkdir(filepath.Join(root, "events"), 0o755)
	file = filepath.Join(root, "tracing_on")
	os.WriteFile(file, []byte("1\n"), 0o644)
	return root, file
}

// deadAs rewrites e's journal as one of a process that has exited.
func deadAs(t *testing.T, e *Entry, boot string) *Entry {
	p := exec.Command("/bin/true")
	if err := p.Run(); err != nil {
		t.Fatal(err)
	}
	d := *e
	d.PID, d.Boot = p.Process.Pid, boot
	b, _ := json.Marshal(&d)
	if err := os.WriteFile(e.path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return &d
}

func TestJournal(t *testing.T) {
	root, file := useDirs(t)
	e, err := Begin(root, []Setting{{File: "tracing_on", Value: "1\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := Stale(""); len(s) != 0 {
		t.Errorf("the journal of a live contend is stale: %v", s)
	}
	os.WriteFile(file, []byte("0\n"), 0)
	d := deadAs(t, e, ipcown.BootID())
	if s, _ := Stale(root); len(s) != 1 || s[0].PID != d.PID {
		t.Fatalf("stale %v; want the dead pid %d", s, d.PID)
	}
	if s, _ := Stale(t.TempDir()); len(s) != 0 {
		t.Errorf("stale for another root: %v", s)
	}
	note, err := RecoverStale(root)
	if err != nil || !strings.Contains(note, "killed contend pid") {
		t.Errorf("RecoverStale: %q, %v", note, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "1\n" {
		t.Errorf("not restored: %q", b)
	}
	if _, err := os.Stat(e.path); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
	// Another boot: nothing is written back, the journal goes.
	e, _ = Begin(root, []Setting{{File: "tracing_on", Value: "1\n"}})
	os.WriteFile(file, []byte("0\n"), 0)
	deadAs(t, e, "another-boot")
	if note, err := RecoverStale(root); note == "" || err != nil {
		t.Errorf("RecoverStale: %q, %v", note, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "0\n" {
		t.Errorf("a journal of another boot was written back: %q", b)
	}
	// Done removes a live journal.
	e, _ = Begin(root, nil)
	if err := e.Done(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.path); !os.IsNotExist(err) {
		t.Errorf("journal left after Done: %v", err)
	}
}

// TestClaim: one claim of a root at a time; Save journals the values it
// found and Release writes them back, removes the journal and frees the
// root; a file that cannot be read fails Save and frees the root.
func TestClaim(t *testing.T) {
	root, file := useDirs(t)
	c, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	// The refusal names the holder, as the machine-wide lock does: here
	// this process (/proc/locks names the pid of the open file's flock).
	var be *BusyError
	if _, err := Take(root); !errors.Is(err, ErrBusy) || !errors.As(err, &be) || be.Holder.Pid != os.Getpid() ||
		!strings.Contains(err.Error(), fmt.Sprintf("%s: pid %d (%s", root, os.Getpid(), os.Args[0])) {
		t.Errorf("second Take: %v, want ErrBusy naming pid %d (%s)", err, os.Getpid(), os.Args[0])
	}
	if err := c.Save([]string{"tracing_on"}); err != nil {
		t.Fatal(err)
	}
	if c.Value("tracing_on") != "1" || c.journal == nil {
		t.Fatalf("saved %q, journal %v", c.Value("tracing_on"), c.journal)
	}
	journal := c.journal.Path()
	os.WriteFile(file, []byte("0\n"), 0)
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "1\n" {
		t.Errorf("after Release: %q, want 1", b)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after Release: %v", err)
	}
	c, err = Take(root)
	if err != nil {
		t.Fatalf("Take after Release: %v", err)
	}
	if err := c.Save([]string{"nosuch"}); err == nil || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("Save of a missing file: %v", err)
	}
	c, err = Take(root)
	if err != nil {
		t.Fatalf("Take after a failed Save: %v", err)
	}
	c.Release()
}
