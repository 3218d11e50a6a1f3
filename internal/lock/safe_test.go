package lock

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"contend/internal/safefile"
)

// victim is a file a planted lock must leave as it was.
func victim(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "shadow")
	if err := os.WriteFile(p, []byte("root:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func assertUntouched(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	st, _ := os.Stat(p)
	if err != nil || string(b) != "root:secret\n" || st.Mode().Perm() != 0o600 {
		t.Errorf("%s was changed: %q, mode %v (%v)", p, b, st.Mode().Perm(), err)
	}
}

// TestLockRefusesSymlink: a symbolic link planted at the lock's name
// (`ln -s /etc/shadow /run/lock/contend.lock`) is refused; its target is
// neither emptied nor made 0666 (it was, before internal/safefile).
func TestLockRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := victim(t, dir)
	path := filepath.Join(dir, "contend.lock")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(context.Background(), path, []string{"contend", "run"}, Options{NoWait: true})
	if err == nil {
		l.Release()
		t.Fatal("Acquire through a symbolic link succeeded")
	}
	if !errors.Is(err, safefile.ErrUnsafe) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("error %q does not say it refused a symbolic link", err)
	}
	assertUntouched(t, target)
	if _, held := Current(path); held {
		t.Error("Current followed the link")
	}
	// A dangling link: nothing is created at its target.
	os.Remove(path)
	os.Symlink(filepath.Join(dir, "made-by-root"), path)
	if _, err := Acquire(context.Background(), path, nil, Options{NoWait: true}); err == nil {
		t.Error("Acquire through a dangling link succeeded")
	}
	if _, err := os.Lstat(filepath.Join(dir, "made-by-root")); !os.IsNotExist(err) {
		t.Errorf("the dangling link's target was created")
	}
}

// TestLockRefusesOtherData: a file of this user that holds something
// else than a lock record (CONTEND_LOCK=~/.profile) is neither emptied
// nor chmodded.
func TestLockRefusesOtherData(t *testing.T) {
	path := victim(t, t.TempDir())
	if l, err := Acquire(context.Background(), path, nil, Options{NoWait: true}); err == nil {
		l.Release()
		t.Fatal("Acquire of a file holding other data succeeded")
	} else if !strings.Contains(err.Error(), "not a contend lock file") {
		t.Errorf("error %q", err)
	}
	assertUntouched(t, path)
}

// TestLockRefusesAnotherUsersFile: a lock file of another (non-root)
// user, planted in a shared directory, is refused, not truncated.
func TestLockRefusesAnotherUsersFile(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a file of another user")
	}
	path := filepath.Join(t.TempDir(), "contend.lock")
	if err := os.WriteFile(path, []byte("pid 1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 54321, 54321); err != nil {
		t.Fatal(err)
	}
	if l, err := Acquire(context.Background(), path, nil, Options{NoWait: true}); err == nil {
		l.Release()
		t.Fatal("Acquire of another user's file succeeded")
	} else if !errors.Is(err, safefile.ErrUnsafe) || !strings.Contains(err.Error(), "uid 54321") {
		t.Errorf("error %q does not name the owner", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "pid 1\n" {
		t.Errorf("the file was changed: %q", b)
	}
}

// TestLockCreatedPrivate: a new lock file is 0644 (others take it
// read-only), never 0666.
func TestLockCreatedPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contend.lock")
	l, err := Acquire(context.Background(), path, []string{"x"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if st, err := os.Stat(path); err != nil || st.Mode().Perm()&0o022 != 0 {
		t.Errorf("lock file mode %v (%v), want no group or other write", st.Mode().Perm(), err)
	}
}

// TestRootLockPath: root's lock is in root's runtime directory, not in
// world-writable /run/lock.
func TestRootLockPath(t *testing.T) {
	t.Setenv("CONTEND_LOCK", "")
	if os.Geteuid() != 0 {
		if p := Path(); p != DefaultPath && p != UserPath() {
			t.Errorf("Path() = %q", p)
		}
		return
	}
	if st, err := os.Stat("/run"); err != nil || !st.IsDir() {
		t.Skip("no /run")
	}
	if p := Path(); p != "/run/contend/lock" {
		t.Errorf("root's Path() = %q, want /run/contend/lock", p)
	}
}

// TestUserSharesRootsLock: another user opens root's lock file (0644, in
// a directory only root writes) read-only and holds it: root then finds
// it held, by that user's pid (from /proc/locks: the user cannot write
// its record), and cannot take it.
func TestUserSharesRootsLock(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a helper as another user")
	}
	dir, err := os.MkdirTemp("", "contend-lock-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	exe := filepath.Join(dir, "lock.test")
	copyFile(t, os.Args[0], exe)
	path := filepath.Join(dir, "contend.lock")
	l, err := Acquire(context.Background(), path, []string{"root-run"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	cmd := exec.Command(exe, "-test.run=^TestHolderHelper$")
	cmd.Env = append(os.Environ(), "LOCK_HELPER_PATH="+path)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("helper as uid 65534 said %q", line)
	}
	h, held := Current(path)
	if !held || h.Pid != cmd.Process.Pid {
		t.Errorf("Current while uid 65534 holds it: %+v %v, want pid %d", h, held, cmd.Process.Pid)
	}
	if _, err := Acquire(context.Background(), path, nil, Options{NoWait: true}); !errors.Is(err, ErrBusy) {
		t.Errorf("root's Acquire while uid 65534 holds it: %v", err)
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("uid 65534 wrote root's lock file: %q", b)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
}
