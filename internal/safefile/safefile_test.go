package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenRefusesLinksAndOthers(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("x"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	if f, err := Open(link, os.O_RDONLY, Self); err == nil || !errors.Is(err, ErrUnsafe) {
		t.Errorf("Open of a link: %v", err)
		f.Close()
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(fifo, os.O_RDONLY, Self); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Open of a FIFO: %v", err)
	}
	if _, _, err := OpenOrCreate(fifo, os.O_RDWR, 0o600, Self); !errors.Is(err, ErrUnsafe) {
		t.Errorf("OpenOrCreate of a FIFO: %v", err)
	}
	if _, err := CreateExcl(link, os.O_RDWR, 0o600); !errors.Is(err, os.ErrExist) {
		t.Errorf("CreateExcl over a link: %v", err)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nothing"), dangling)
	if _, _, err := OpenOrCreate(dangling, os.O_RDWR, 0o600, Self); err == nil {
		t.Error("OpenOrCreate through a dangling link succeeded")
	}
	if _, err := os.Lstat(filepath.Join(dir, "nothing")); !os.IsNotExist(err) {
		t.Error("the dangling link's target was created")
	}
	if _, err := Open(filepath.Join(dir, "target", "x"), os.O_RDONLY|os.O_CREATE, Self); err == nil {
		t.Error("Open took O_CREATE")
	}
	if os.Geteuid() == 0 {
		os.Chown(target, 4242, 4242)
		if _, err := Open(target, os.O_RDONLY, SelfOrRoot); !errors.Is(err, ErrUnsafe) {
			t.Errorf("Open of another user's file: %v", err)
		}
	}
}

func TestWriteFileReplacesALinkNotItsTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o600)
	path := filepath.Join(dir, "state.json")
	os.Symlink(target, path)
	if err := WriteFile(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		t.Errorf("%s is not a regular file now: %v", path, err)
	}
	if b, _ := ReadFile(path, Self); string(b) != "new" {
		t.Errorf("read back %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("temporary left: %v", ents)
	}
}

func TestDirChecks(t *testing.T) {
	base := t.TempDir()
	uid := os.Geteuid()
	d := filepath.Join(base, "d")
	if err := Dir(d, 0o755, uid); err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o777)
	if err := CheckDir(d, uid); !errors.Is(err, ErrUnsafe) {
		t.Errorf("world-writable directory: %v", err)
	}
	l := filepath.Join(base, "l")
	os.Symlink(d, l)
	if err := Dir(l, 0o755, uid); !errors.Is(err, ErrUnsafe) {
		t.Errorf("a link as the directory: %v", err)
	}
	if err := CheckDir(base, uid+1); !errors.Is(err, ErrUnsafe) {
		t.Errorf("another user's directory: %v", err)
	}
}
