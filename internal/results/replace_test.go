package results

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReplaceKeepsOldUntilNewIsDurable: --replace writes the new file
// beside the old one and renames it over it once its first records are
// synced: a write that fails (disk full, at the first byte) leaves the
// old file whole and nothing beside it; it used to truncate the old file
// first, losing it. A replacement that works takes the old file's place
// with its permissions, and is locked against a second writer as the old
// one was.
func TestReplaceKeepsOldUntilNewIsDurable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	w, err := Create(path, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.Add(rep(i))
	}
	w.Finish(time.Now(), true)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)

	defer func() { writeAt = (*os.File).WriteAt }()
	writeAt = func(fh *os.File, b []byte, off int64) (int, error) { return 0, syscall.ENOSPC }
	if _, err := Open(path, sampleFile(), ModeReplace); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Open --replace on a full disk: %v", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != string(old) {
		t.Fatalf("the old file after a failed --replace: %v, %d bytes, want its %d bytes as they were", err, len(b), len(old))
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("files left beside it: %v", names)
	}

	writeAt = (*os.File).WriteAt
	w, err = Open(path, sampleFile(), ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	// The new file is in place, and locked.
	if f, err := Read(path); err != nil || len(f.Reps) != 0 {
		t.Errorf("after --replace: %v, %d repetitions, want the new file's 0", err, len(f.Reps))
	}
	for _, m := range []Mode{ModeNew, ModeReplace, ModeAppend} {
		if _, err := Open(path, sampleFile(), m); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
			t.Errorf("mode %d while the replacement is written: %v, want it refused", m, err)
		}
	}
	w.Add(rep(0))
	if err := w.Finish(time.Now(), true); err != nil {
		t.Fatal(err)
	}
	if f, err := Read(path); err != nil || len(f.Reps) != 1 || !f.Complete {
		t.Errorf("the replaced file: %v %+v", err, f)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("the replaced file's permissions: %v %v, want the old file's 0640", err, st.Mode())
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("files left beside it: %v", names)
	}
}

// TestReplaceThroughSymlink: --replace of a symbolic link replaces the
// file it names and leaves the link, as writing through it in place did.
func TestReplaceThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	w, err := Create(real, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	w.Add(rep(0))
	w.Finish(time.Now(), true)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	w, err = Open(link, sampleFile(), ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	w.Finish(time.Now(), true)
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link after --replace: %v %v", err, st.Mode())
	}
	if f, err := Read(real); err != nil || len(f.Reps) != 0 || !f.Complete {
		t.Errorf("the file the link names: %v %+v, want the new, empty one", err, f)
	}
	if names, _ := os.ReadDir(dir); len(names) != 2 {
		t.Errorf("files: %v", names)
	}
}

// TestLockOfAReplacedFileIsRefused: a writer that opened the file before
// another renamed a new one over it and locks it afterwards (when the
// other has let the old one go) holds a file no longer at the path: lock
// says so (errMoved) instead of succeeding, and Open tries the path
// again, where the new file's writer refuses it.
func TestLockOfAReplacedFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	w, err := Create(path, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	w.Finish(time.Now(), true)
	stale, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stale.Close()
	w, err = Open(path, sampleFile(), ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := lock(stale, path); err != errMoved {
		t.Errorf("lock of the file replaced: %v, want errMoved", err)
	}
	if _, err := Open(path, sampleFile(), ModeAppend); !errors.Is(err, ErrLocked) {
		t.Errorf("Open while the replacement is written: %v, want ErrLocked", err)
	}
}

// TestLockOfARemovedFileIsRefused: a writer that opened the file before
// another removed it (a new file whose first write failed: Create removes
// it, locked) and locks it afterwards holds a file at no path: lock says
// so (errMoved) and Open creates the path again; the lock was taken, and
// the repetitions written into a file that no one could read.
func TestLockOfARemovedFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stale, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stale.Close()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := lock(stale, path); err != errMoved {
		t.Errorf("lock of the file removed: %v, want errMoved", err)
	}
}

// TestAppendConvertsThroughSymlink: --append to a version-1 file through
// a symbolic link converts the file the link names and leaves the link,
// keeping the file's permissions: the converted file was renamed over the
// link (the file it named left as it was, version 1) with mode 0644.
func TestAppendConvertsThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	f := sampleFile()
	f.Reps = []Rep{rep(0)}
	v1, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, v1, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	w, err := Open(link, sampleFile(), ModeAppend)
	if err != nil {
		t.Fatal(err)
	}
	w.Add(rep(1))
	if err := w.Finish(time.Now(), true); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link after --append: %v %v, want it a link still", err, st.Mode())
	}
	if f, err := Read(real); err != nil || f.Version != FormatVersion || len(f.Reps) != 2 {
		t.Errorf("the file the link names: %v %+v, want version 2 with 2 repetitions", err, f)
	}
	if st, err := os.Stat(real); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("the converted file's permissions: %v %v, want the old file's 0640", err, st.Mode())
	}
	if names, _ := os.ReadDir(dir); len(names) != 2 {
		t.Errorf("files: %v", names)
	}
}
