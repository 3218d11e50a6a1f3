// Package lock is contend's machine-wide lock: one benchmark at a time.
// It is an flock(2) on one file, DefaultPath (/run/contend/lock) in
// root's runtime directory; the holder writes its pid, command line and
// start time into the file when it may, so a second command can say who
// it waits for (else /proc/locks names the holder's pid). The kernel
// drops the lock when the holder dies, however it dies (SIGKILL
// included).
//
// Root makes the directory (0755, root's, writable by nobody else) and
// the file (0644) and takes the lock read-write. Every other user opens
// root's file read-only, which is all flock needs: a user's run and
// root's serialise, and no user can plant a link or a file there. Where
// root's file does not exist yet, a user's run locks its own runs only,
// with a lock in its runtime directory ($XDG_RUNTIME_DIR/contend or
// /tmp/contend-UID), and says so. Every lock file is opened with
// O_NOFOLLOW and checked (a regular file of this user or root,
// internal/safefile), and contend writes its record only into a file it
// owns that is empty or holds a record: never into another file.
//
// $CONTEND_LOCK names another lock file, or "off" for no lock at all (the
// test suites of cmd/contend set it, so that their many parallel runs
// never serialise with each other or with the developer's real runs).
package lock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"contend/internal/safefile"
)

// DefaultPath is the machine-wide lock file when $CONTEND_LOCK is not
// set, in root's runtime directory.
var DefaultPath = filepath.Join(safefile.RootRuntimeDir, "lock")

// Path returns the lock file to use: $CONTEND_LOCK; else DefaultPath for
// root, and for another user when root's file exists; else the user's
// own lock (UserPath). It returns "" when $CONTEND_LOCK is "off".
func Path() string {
	p := os.Getenv("CONTEND_LOCK")
	switch {
	case p == "off":
		return ""
	case p != "":
		return p
	}
	if os.Geteuid() == 0 {
		if st, err := os.Stat(filepath.Dir(safefile.RootRuntimeDir)); err == nil && st.IsDir() {
			return DefaultPath
		}
		return UserPath()
	}
	if st, err := os.Lstat(DefaultPath); err == nil && st.Mode().IsRegular() {
		return DefaultPath
	}
	return UserPath()
}

// UserPath is the lock of a user's runs when root's does not exist: in
// the user's runtime directory (the directory is made by Acquire).
func UserPath() string {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("contend-%d", os.Geteuid()))
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		dir = filepath.Join(x, "contend")
	}
	return filepath.Join(dir, "lock")
}

// Note says what a lock at path does not do, for a line on stderr: the
// user's own lock does not serialise with root's or other users' runs.
// It is "" for any other lock.
func Note(path string) string {
	if os.Getenv("CONTEND_LOCK") != "" || os.Geteuid() == 0 || path != UserPath() {
		return ""
	}
	return fmt.Sprintf("note: no machine-wide lock %s yet (root's first run makes it): this run locks against this user's runs only (%s)", DefaultPath, path)
}

// Holder is who holds the lock, as written in the lock file.
type Holder struct {
	Pid     int
	Since   time.Time
	Command string
}

func (h Holder) String() string {
	if h.Pid == 0 {
		return "a process that has not written its name yet"
	}
	if h.Since.IsZero() {
		return fmt.Sprintf("pid %d (%s)", h.Pid, h.Command)
	}
	return fmt.Sprintf("pid %d (%s) since %s", h.Pid, h.Command, h.Since.Format("15:04:05"))
}

// Record writes text into the lock file f as its holder's record, in
// place of the previous holder's (the flock is on the file, the record is
// its content, for the message of whoever finds it held). Both contend's
// locks use it: this one and a campaign's step lock. f must be a file
// contend made (Acquire checks that it is empty or holds a record).
func Record(f *os.File, text string) {
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(text), 0)
	}
}

// Recorded returns the record of the holder of the lock file at path,
// without surrounding space ("" when there is none or it cannot be read;
// a symbolic link or another user's file is not read).
func Recorded(path string) string {
	b, _ := safefile.ReadFile(path, safefile.SelfOrRoot)
	return strings.TrimSpace(string(b))
}

// isRecord says whether b is what Record writes: empty, or a record
// ("pid N ..." of this lock, "step pid N" of a campaign's).
func isRecord(b []byte) bool {
	return len(b) == 0 || strings.HasPrefix(string(b), "pid ") || strings.HasPrefix(string(b), "step pid ")
}

// parseHolder reads "pid N\nsince RFC3339\ncommand TEXT\n".
func parseHolder(rec string) Holder {
	var h Holder
	for _, l := range strings.Split(rec, "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "pid":
			h.Pid, _ = strconv.Atoi(v)
		case "since":
			h.Since, _ = time.Parse(time.RFC3339Nano, v)
		case "command":
			h.Command = v
		}
	}
	return h
}

// ErrBusy is returned by Acquire with NoWait when another process holds
// the lock.
var ErrBusy = errors.New("busy")

// BusyError says who holds the lock.
type BusyError struct {
	Path   string
	Holder Holder
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("another benchmark holds %s: %s; wait for it (drop --no-wait), or give --no-lock", e.Path, e.Holder)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Lock is a held lock; Release lets it go.
type Lock struct {
	f *os.File
	// writable: the file is this user's and was opened read-write, so
	// the holder's record is written in it.
	writable bool
}

// Release drops the lock (a nil Lock is fine).
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	if l.writable {
		Record(l.f, "")
	}
	unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
	l.f = nil
}

// Options say how Acquire behaves when the lock is held.
type Options struct {
	NoWait bool
	// Waiting is called once per holder seen while waiting.
	Waiting func(Holder)
	// Poll is how often a waiter tries again (default 100 ms).
	Poll time.Duration
}

// Current returns who holds the lock at path now, and whether anyone does.
func Current(path string) (Holder, bool) {
	f, err := safefile.Open(path, os.O_RDONLY, safefile.SelfOrRoot)
	if err != nil {
		return Holder{}, false
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return Holder{}, false
	}
	return holder(f), true
}

// holder reads the record of the lock file f, or, when there is none (a
// holder that could not write it: another user's run on root's file),
// finds the pid holding f's flock in /proc/locks.
func holder(f *os.File) Holder {
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	h := parseHolder(strings.TrimSpace(string(b[:n])))
	if h.Pid != 0 {
		return h
	}
	return FlockHolder(f)
}

// FlockHolder is the process that /proc/locks names as holding an flock
// of the open file (or directory) f: its pid and command line; the zero
// Holder when none is found. The tracefs claim (internal/tracejournal)
// names its holder with it.
func FlockHolder(f *os.File) Holder {
	var h Holder
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return h
	}
	if h.Pid = flockPid(st); h.Pid != 0 {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", h.Pid))
		h.Command = strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		if h.Command == "" {
			h.Command = "?"
		}
	}
	return h
}

// flockPid is the pid that /proc/locks names as holding an flock of the
// file st, or 0.
func flockPid(st unix.Stat_t) int {
	fh, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer fh.Close()
	dev := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		// 1: FLOCK  ADVISORY  WRITE 1234 fd:00:5678 0 EOF
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[5] != dev {
			continue
		}
		if pid, err := strconv.Atoi(fs[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}

// open opens (or creates) the lock file at path: no symbolic link, a
// regular file of this user or root; root's file read-only for another
// user. DefaultPath's directory is made by root (safefile.RuntimeDir) and
// must be root's and writable by nobody else; a user's own lock's
// directory is the user's.
func open(path string) (f *os.File, writable bool, err error) {
	switch {
	case path == DefaultPath && os.Geteuid() == 0, path == UserPath():
		if _, err := safefile.RuntimeDir(); err != nil {
			return nil, false, err
		}
	case path == DefaultPath:
		if err := safefile.CheckDir(filepath.Dir(path), 0); err != nil {
			return nil, false, err
		}
	}
	f, _, err = safefile.OpenOrCreate(path, os.O_RDWR, 0o644, safefile.SelfOrRoot)
	if errors.Is(err, os.ErrPermission) {
		// Root's lock, for another user: flock works on a read-only
		// descriptor; the holder's name then stays unwritten.
		f, err = safefile.Open(path, os.O_RDONLY, safefile.SelfOrRoot)
		return f, false, err
	}
	if err != nil {
		return nil, false, err
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) == nil && st.Uid != uint32(os.Geteuid()) {
		return f, false, nil // root's, opened read-write by a user it lets: not written
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil || !isRecord(b) {
		f.Close()
		return nil, false, fmt.Errorf("%s is not a contend lock file (it holds other data), and contend writes only into its own", path)
	}
	return f, true, nil
}

// Acquire takes the lock at path for the command line argv: at once if
// it is free, else after waiting (polling, so that ctx can cancel the
// wait), or ErrBusy (a *BusyError) with NoWait.
func Acquire(ctx context.Context, path string, argv []string, opt Options) (*Lock, error) {
	f, writable, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the benchmark lock %s: %w (set CONTEND_LOCK to another file, or give --no-lock)", path, err)
	}
	poll := opt.Poll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	var seen Holder
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %v (give --no-lock to run without the lock)", path, err)
		}
		h := holder(f)
		if opt.NoWait {
			f.Close()
			return nil, &BusyError{Path: path, Holder: h}
		}
		if h != seen && h.Pid != 0 && opt.Waiting != nil {
			opt.Waiting(h)
			seen = h
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
	l := &Lock{f: f, writable: writable}
	if writable {
		Record(f, fmt.Sprintf("pid %d\nsince %s\ncommand %s\n", os.Getpid(), time.Now().Format(time.RFC3339Nano), strings.Join(argv, " ")))
	}
	return l, nil
}

// HeldError says that a directory's lock (TryFile) is held, and by whom
// as its holder recorded it ("" when it wrote nothing yet).
type HeldError struct {
	Path   string
	Holder string
}

func (e *HeldError) Error() string {
	h := e.Holder
	if h == "" {
		h = "a process that has not written its name yet"
	}
	return fmt.Sprintf("%s is held by %s", e.Path, h)
}

func (e *HeldError) Unwrap() error { return ErrBusy }

// TryFile takes the lock of a directory of contend's (a campaign's, a
// search's): an exclusive flock on the file at path (created when
// missing; this user's, never through a symbolic link), without waiting,
// with holder recorded in it for whoever finds it held (Record). When
// another process holds it, the error is a *HeldError with that
// process's record. Closing the file (or the death of the holder and of
// every process that inherited it) releases the lock.
func TryFile(path, holder string) (*os.File, error) {
	f, _, err := safefile.OpenOrCreate(path, os.O_RDWR, 0o644, safefile.Self)
	if err != nil {
		return nil, fmt.Errorf("cannot open the lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &HeldError{Path: path, Holder: Recorded(path)}
		}
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	Record(f, holder+"\n")
	return f, nil
}
