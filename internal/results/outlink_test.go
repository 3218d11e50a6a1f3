package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDanglingLinkRefused: --out naming a symbolic link to nothing is
// refused in every mode, and nothing is created at the link's target
// (before, --replace and --append created it: root wrote wherever a
// planted link pointed).
func TestDanglingLinkRefused(t *testing.T) {
	for _, mode := range []Mode{ModeNew, ModeReplace, ModeAppend} {
		dir := t.TempDir()
		link := filepath.Join(dir, "r.json")
		to := filepath.Join(dir, "elsewhere", "..", "made-by-root.json")
		os.Mkdir(filepath.Join(dir, "elsewhere"), 0o755)
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
		w, err := Open(link, sampleFile(), mode)
		if err == nil {
			w.Close()
			t.Errorf("mode %d: a dangling link was accepted", mode)
		} else if !strings.Contains(err.Error(), "does not exist") || !errors.Is(err, ErrExists) {
			t.Errorf("mode %d: error %q does not say the link names nothing", mode, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "made-by-root.json")); !os.IsNotExist(err) {
			t.Errorf("mode %d: the link's target was created", mode)
		}
	}
}

// TestLinkToNonRegularRefused: a link to a directory is refused with a
// message, not an open error.
func TestLinkToNonRegularRefused(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "r.json")
	os.Symlink(dir, link)
	for _, mode := range []Mode{ModeReplace, ModeAppend} {
		if w, err := Open(link, sampleFile(), mode); err == nil {
			w.Close()
			t.Errorf("mode %d: a link to a directory was accepted", mode)
		} else if !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("mode %d: %v", mode, err)
		}
	}
}

// TestAnotherUsersOutRefused: in a directory others may write (/tmp), a
// result file or a link of another user is neither appended to nor
// replaced.
func TestAnotherUsersOutRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make files of another user")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o1777)
	planted := filepath.Join(dir, "planted.json")
	w, err := Create(planted, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	before, _ := os.ReadFile(planted)
	os.Chown(planted, 54321, 54321)
	for _, mode := range []Mode{ModeReplace, ModeAppend} {
		if w, err := Open(planted, sampleFile(), mode); err == nil {
			w.Close()
			t.Errorf("mode %d: another user's file in a shared directory was accepted", mode)
		} else if !strings.Contains(err.Error(), "uid 54321") {
			t.Errorf("mode %d: %v", mode, err)
		}
	}
	if after, _ := os.ReadFile(planted); string(after) != string(before) {
		t.Error("the planted file was changed")
	}
	mine := filepath.Join(dir, "mine.json")
	w, err = Create(mine, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	link := filepath.Join(dir, "link.json")
	os.Symlink(mine, link)
	os.Lchown(link, 54321, 54321)
	if w, err := Open(link, sampleFile(), ModeReplace); err == nil {
		w.Close()
		t.Error("another user's link was followed")
	} else if !strings.Contains(err.Error(), "symbolic link of uid 54321") {
		t.Errorf("another user's link: %v", err)
	}
}
