// Package lock is contend's machine-wide lock: one benchmark at a time.
// It is an flock(2) on one file (/run/lock/contend.lock by default); the
// holder writes its pid, command line and start time into the file, so a
// second command can say who it waits for. The kernel drops the lock when
// the holder dies, however it dies (SIGKILL included).
//
// $CONTEND_LOCK names another lock file, or "off" for no lock at all (the
// test suites of cmd/contend set it, so that their many parallel runs
// never serialise with each other or with the developer's real runs).
package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultPath is the lock file when $CONTEND_LOCK is not set.
const DefaultPath = "/run/lock/contend.lock"

// Path returns the lock file to use: $CONTEND_LOCK, or DefaultPath (or,
// where /run/lock does not exist, contend.lock in the temporary
// directory). It returns "" when $CONTEND_LOCK is "off".
func Path() string {
	p := os.Getenv("CONTEND_LOCK")
	switch {
	case p == "off":
		return ""
	case p != "":
		return p
	}
	if st, err := os.Stat(filepath.Dir(DefaultPath)); err == nil && st.IsDir() {
		return DefaultPath
	}
	return filepath.Join(os.TempDir(), "contend.lock")
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
	return fmt.Sprintf("pid %d (%s) since %s", h.Pid, h.Command, h.Since.Format("15:04:05"))
}

// Record writes text into the lock file f as its holder's record, in
// place of the previous holder's (the flock is on the file, the record is
// its content, for the message of whoever finds it held). Both contend's
// locks use it: this one and a campaign's step lock.
func Record(f *os.File, text string) {
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(text), 0)
	}
}

// Recorded returns the record of the holder of the lock file at path,
// without surrounding space ("" when there is none or it cannot be read).
func Recorded(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
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
type Lock struct{ f *os.File }

// Release drops the lock (a nil Lock is fine).
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	Record(l.f, "")
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
	f, err := os.Open(path)
	if err != nil {
		return Holder{}, false
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return Holder{}, false
	}
	return parseHolder(Recorded(path)), true
}

// Acquire takes the lock at path for the command line argv: at once if
// it is free, else after waiting (polling, so that ctx can cancel the
// wait), or ErrBusy (a *BusyError) with NoWait.
func Acquire(ctx context.Context, path string, argv []string, opt Options) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if errors.Is(err, os.ErrPermission) {
		// A file made by another user: flock works on a read-only
		// descriptor; the holder's name then stays unwritten.
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the benchmark lock %s: %v (set CONTEND_LOCK to another file, or give --no-lock)", path, err)
	}
	if st, err := f.Stat(); err == nil && st.Mode().Perm() != 0o666 && st.Sys() != nil {
		f.Chmod(0o666) // every user's contend may take it; fails quietly when not ours
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
		h := parseHolder(Recorded(path))
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
	Record(f, fmt.Sprintf("pid %d\nsince %s\ncommand %s\n", os.Getpid(), time.Now().Format(time.RFC3339Nano), strings.Join(argv, " ")))
	return &Lock{f: f}, nil
}
