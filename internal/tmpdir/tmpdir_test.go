package tmpdir

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKilledOwnersDirsRemoved: the directories of every kind whose owner
// was SIGKILLed are stale and removed; a live owner's, one without an
// owner file, a link and a directory of another name are left.
func TestKilledOwnersDirsRemoved(t *testing.T) {
	if os.Getenv("CONTEND_TMPDIR_HELPER") == "1" {
		for _, k := range Kinds {
			d, err := New(k, "")
			if err != nil {
				os.Exit(1)
			}
			os.Stdout.WriteString(d.Path + "\n")
		}
		os.Stdout.WriteString("ready\n")
		select {} // until killed
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	helper := exec.Command(os.Args[0], "-test.run=^TestKilledOwnersDirsRemoved$")
	helper.Env = append(os.Environ(), "CONTEND_TMPDIR_HELPER=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var killed []string
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		killed = append(killed, sc.Text())
	}
	if len(killed) != len(Kinds) {
		helper.Process.Kill()
		helper.Wait()
		t.Fatalf("the helper made %v", killed)
	}
	// While the helper lives, nothing of it is stale.
	if s := Stale(tmp, Kinds...); len(s) != 0 {
		t.Errorf("stale while the owner lives: %v", s)
	}
	live, err := New(VM, "")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	bare := filepath.Join(tmp, WIS+"bare")
	other := filepath.Join(tmp, "other-dir")
	link := filepath.Join(tmp, Profile+"link")
	for _, d := range []string{bare, other} {
		os.Mkdir(d, 0o700)
	}
	os.Symlink(killed[0], link)
	helper.Process.Kill()
	helper.Wait()

	if s := Stale(tmp, Kinds...); !sameSet(s, killed) {
		t.Errorf("stale %v, want the killed owner's %v", s, killed)
	}
	if r := RemoveStale(tmp, Kinds...); !sameSet(r, killed) {
		t.Errorf("removed %v, want %v", r, killed)
	}
	for _, d := range killed {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", d, err)
		}
	}
	for _, d := range []string{live.Path, bare, other, link} {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
	if err := live.Close(); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(live.Path); !os.IsNotExist(err) {
		t.Errorf("Close left %s: %v", live.Path, err)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}
