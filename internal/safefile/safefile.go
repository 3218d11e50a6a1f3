// Package safefile opens the files contend keeps in shared places (the
// machine-wide lock, the SysV and tracefs journals, the tune state, a
// campaign's files, result files and their temporaries) so that a
// symbolic link or a file of another user planted there is refused rather
// than followed: every open carries O_NOFOLLOW, every fresh name is
// created with O_EXCL, and what is found is checked with fstat on the
// open descriptor (a regular file, of an accepted owner), never with a
// stat of the name before the open.
//
// On a machine where fs.protected_symlinks is 0 (this project's VMs),
// `ln -s /etc/shadow /run/lock/contend.lock` made root's next run empty
// /etc/shadow and make it mode 0666: these functions are the one way
// contend opens such a file, so that no caller forgets a flag.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Owners is the set of users whose files an open accepts.
type Owners int

const (
	// Self accepts only files of the effective user.
	Self Owners = iota
	// SelfOrRoot also accepts root's files (the machine-wide lock, made
	// by root, shared read-only with every user).
	SelfOrRoot
)

func (o Owners) accepts(uid uint32) bool {
	e := uint32(os.Geteuid())
	return uid == e || (o == SelfOrRoot && uid == 0)
}

// ErrUnsafe is the kind of every refusal of this package (errors.Is).
var ErrUnsafe = errors.New("unsafe file")

// unsafef makes a refusal.
func unsafef(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsafe}, a...)...)
}

// Open opens the existing file at path with flag (O_RDONLY, O_RDWR,
// O_APPEND...; O_CREATE and O_TRUNC are refused: see OpenOrCreate and
// CreateExcl), refusing a symbolic link, anything but a regular file, and
// a file not of owners.
func Open(path string, flag int, owners Owners) (*os.File, error) {
	if flag&(os.O_CREATE|os.O_TRUNC) != 0 {
		return nil, fmt.Errorf("safefile.Open %s: O_CREATE and O_TRUNC are not allowed", path)
	}
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, unsafef("%s is a symbolic link, which contend does not follow here: remove it", path)
		}
		return nil, err
	}
	if err := Check(f, owners); err != nil {
		f.Close()
		return nil, err
	}
	// O_NONBLOCK kept a FIFO planted at path from blocking the open; a
	// regular file is unaffected by it, but drop it anyway.
	if fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0); err == nil {
		unix.FcntlInt(f.Fd(), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	return f, nil
}

// Check refuses f unless it is a regular file of owners (fstat of the
// open descriptor).
func Check(f *os.File, owners Owners) error {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fmt.Errorf("cannot stat %s: %v", f.Name(), err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return unsafef("%s is not a regular file: remove it", f.Name())
	}
	if !owners.accepts(st.Uid) {
		who := fmt.Sprintf("uid %d (this user)", os.Geteuid())
		if owners == SelfOrRoot && os.Geteuid() != 0 {
			who += " or root"
		}
		return unsafef("%s belongs to uid %d, not to %s: contend does not use another user's file here; remove it", f.Name(), st.Uid, who)
	}
	return nil
}

// CreateExcl creates path, which must not exist (O_EXCL: not even as a
// dangling symbolic link), with mode perm (less the umask).
func CreateExcl(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
}

// OpenOrCreate opens path with flag as Open does, or creates it with
// CreateExcl when it does not exist; created says which. A file that
// appears between the two tries is opened as Open does.
func OpenOrCreate(path string, flag int, perm os.FileMode, owners Owners) (f *os.File, created bool, err error) {
	for try := 0; try < 10; try++ {
		f, err = CreateExcl(path, flag, perm)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, false, err
		}
		f, err = Open(path, flag, owners)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return f, false, err
		}
		// Removed meanwhile: create it again.
	}
	return nil, false, err
}

// CreateTemp creates a fresh file in dir named prefix, a random number
// and suffix (O_EXCL, O_NOFOLLOW), as os.CreateTemp, with mode perm.
func CreateTemp(dir, prefix, suffix string, perm os.FileMode) (*os.File, error) {
	for try := 0; try < 100; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(nextRandom()), 10)+suffix)
		f, err := CreateExcl(name, os.O_RDWR, perm)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s: too many names taken", dir)
}

var randState uint32

// nextRandom is os.CreateTemp's generator: names need only be unlikely,
// O_EXCL makes them safe.
func nextRandom() uint32 {
	if randState == 0 {
		randState = uint32(time.Now().UnixNano()) ^ uint32(os.Getpid())<<16 | 1
	}
	randState ^= randState << 13
	randState ^= randState >> 17
	randState ^= randState << 5
	return randState
}

// WriteFile writes data to path whole or not at all: a fresh temporary
// file beside it (CreateTemp), synced, renamed over path (a symbolic
// link at path is replaced, never followed), and the directory synced.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := CreateTemp(dir, "."+filepath.Base(path)+".tmp-", "", perm)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	tmp.Close()
	SyncDir(dir)
	return nil
}

// ReadFile reads the file at path as Open does (no symbolic link, a
// regular file of owners).
func ReadFile(path string, owners Owners) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, owners)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// SyncDir fsyncs directory dir (a rename in it made durable).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Dir makes sure dir is a private directory of uid: created with mode
// perm when missing (os.Mkdir, which never follows a link), then checked
// with lstat: a directory, not a symbolic link, owned by uid, writable by
// nobody else (no group or other write bit).
func Dir(dir string, perm os.FileMode, uid int) error {
	if err := os.Mkdir(dir, perm); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cannot create the directory %s: %v", dir, err)
	}
	return CheckDir(dir, uid)
}

// CheckDir refuses dir unless it is a directory (not a symbolic link)
// owned by uid and writable by nobody else.
func CheckDir(dir string, uid int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("cannot use the directory %s: %v", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return unsafef("%s is a symbolic link, not a directory: remove it", dir)
	case !fi.IsDir() || !ok:
		return unsafef("%s is not a directory: remove it", dir)
	case int(st.Uid) != uid:
		return unsafef("the directory %s belongs to uid %d, not uid %d: remove it", dir, st.Uid, uid)
	case fi.Mode().Perm()&0o022 != 0:
		return unsafef("the directory %s is writable by others (mode %04o): remove it, or chmod go-w it", dir, fi.Mode().Perm())
	}
	return nil
}

// Shared says whether users other than the directory's owner may create
// files in dir (a group or other write bit: /tmp, /run/lock), where a
// name may have been planted by another user.
func Shared(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.Mode().Perm()&0o022 != 0
}

// RootRuntimeDir is root's runtime directory: the SysV and tracefs
// journals, and the machine-wide lock, which every user opens read-only
// (hence mode 0755, where the journals' own files are 0600).
const RootRuntimeDir = "/run/contend"

// RuntimeDir returns contend's runtime directory for this user, created
// if needed: RootRuntimeDir for root (mode 0755; where /run is missing,
// as for other users), else $XDG_RUNTIME_DIR/contend, else
// /tmp/contend-UID (mode 0700). It must be a directory (not a symbolic
// link) owned by this user and writable by nobody else (Dir). A
// RootRuntimeDir of mode 0700, as contend made it before it held the
// lock, is opened to 0755 (root's own directory, checked first).
func RuntimeDir() (string, error) {
	uid := os.Geteuid()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("contend-%d", uid))
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		dir = filepath.Join(x, "contend")
	}
	perm := os.FileMode(0o700)
	if uid == 0 {
		if fi, err := os.Stat(filepath.Dir(RootRuntimeDir)); err == nil && fi.IsDir() {
			dir, perm = RootRuntimeDir, 0o755
		}
	}
	if err := Dir(dir, perm, uid); err != nil {
		return "", fmt.Errorf("cannot use contend's runtime directory: %w", err)
	}
	if dir == RootRuntimeDir {
		if fi, err := os.Lstat(dir); err == nil && fi.Mode().Perm() == 0o700 {
			os.Chmod(dir, 0o755)
		}
	}
	return dir, nil
}
