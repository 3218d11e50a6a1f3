// Package tmpdir makes contend's private temporary directories (the VM
// runner's initramfs and guests, the will-it-scale compile, the profile's
// recordings) and removes those a killed contend left, and only those.
//
// A directory is stale only when its owner is provably gone: the owner
// holds an flock on a file in the directory (OwnerFile) for as long as
// the directory is its, and the kernel drops the lock when the owner
// dies, SIGKILL included. A lock is on the file, not on a pid: it holds
// across PID namespaces (a contend in a container or under `unshare -p`
// sees a live owner's lock where it cannot see its pid) and survives pid
// reuse. The owner file is locked before it gets its name (a temporary
// name, flock, rename), so that no directory ever has an unlocked owner
// file while its owner lives; a directory without one (being made now,
// or left by a contend older than this rule) is never removed.
package tmpdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The prefixes of the names of contend's temporary directories in
// os.TempDir(), followed by os.MkdirTemp's random part.
const (
	VM      = "contend-vm-"      // internal/vm's Runner: the initramfs, each guest's files
	WIS     = "contend-wis-"     // internal/wisbuild: the compiled will-it-scale tests
	Profile = "contend-profile-" // internal/evidence's profile: perf's recordings
)

// Kinds lists every prefix, for `contend cleanup`.
var Kinds = []string{VM, WIS, Profile}

// OwnerFile is the file in a directory that its owner holds an flock on.
const OwnerFile = ".contend-owner"

// Dir is a private temporary directory (mode 0700) owned by this process
// until Close.
type Dir struct {
	Path string
	lock *os.File // OwnerFile, flocked
}

// New makes a directory named kind+infix+random in os.TempDir() (kind
// one of Kinds), owned by this process, after removing the directories of
// kind that killed contends left there (RemoveStale).
func New(kind, infix string) (*Dir, error) {
	RemoveStale(os.TempDir(), kind)
	p, err := os.MkdirTemp("", kind+infix)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(p, ".owner-")
	if err == nil {
		if err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
			fmt.Fprintf(f, "pid %d\n", os.Getpid())
			err = os.Rename(f.Name(), filepath.Join(p, OwnerFile))
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(p)
		return nil, fmt.Errorf("making the owner file of %s: %v", p, err)
	}
	return &Dir{Path: p, lock: f}, nil
}

// Close removes the directory and lets its lock go (a nil Dir is fine).
func (d *Dir) Close() error {
	if d == nil || d.lock == nil {
		return nil
	}
	err := os.RemoveAll(d.Path)
	d.lock.Close()
	d.lock = nil
	return err
}

// RemoveStale removes the directories in dir whose names start with one
// of prefixes and whose owner is gone: directories (not links) of this
// user with an owner file that nobody holds locked. It returns the
// paths it removed. A directory of a live owner, whatever its PID
// namespace, another user's, or one without an owner file is left.
func RemoveStale(dir string, prefixes ...string) []string {
	return stale(dir, prefixes, true)
}

// Stale lists the directories RemoveStale would remove now.
func Stale(dir string, prefixes ...string) []string {
	return stale(dir, prefixes, false)
}

func stale(dir string, prefixes []string, remove bool) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var found []string
	for _, e := range ents {
		if !hasPrefix(e.Name(), prefixes) || !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if ownerGone(p, remove) {
			found = append(found, p)
		}
	}
	return found
}

func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// ownerGone tells whether p is this user's directory whose owner file
// nobody holds locked, and with remove removes it (holding the lock
// while it does, so that two cleaners do not race; false when it could
// not be removed).
func ownerGone(p string, remove bool) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.IsDir() {
		return false
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() {
		return false
	}
	f, err := os.OpenFile(filepath.Join(p, OwnerFile), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false // no owner file: being made, or not ours to judge
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !fst.Mode().IsRegular() {
		return false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false // its owner lives (EWOULDBLOCK), or unknown
	}
	if !remove {
		return true
	}
	return os.RemoveAll(p) == nil
}
