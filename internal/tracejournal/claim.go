package tracejournal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"contend/internal/esc"
	"contend/internal/lock"
)

// TraceRoots are where tracefs is looked for, in order; the environment
// variable CONTEND_TRACEFS replaces them (tests use a fake directory).
var TraceRoots = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

func roots() []string {
	if env := os.Getenv("CONTEND_TRACEFS"); env != "" {
		return []string{env}
	}
	return TraceRoots
}

// FindRoot returns the tracefs mount: the first of the roots with an
// events directory; else NotPermitted when one of them refused this user
// (tracefs is mounted, but root's), else NotMounted.
func FindRoot() (string, error) {
	denied := ""
	for _, r := range roots() {
		st, err := statRoot(filepath.Join(r, "events"))
		if err == nil && st.IsDir() {
			return r, nil
		}
		if errors.Is(err, fs.ErrPermission) && denied == "" {
			denied = r
		}
	}
	if denied != "" {
		return "", NotPermitted(denied)
	}
	return "", NotMounted()
}

// NotMounted is FindRoot's error: where it looked and how to mount tracefs.
func NotMounted() error {
	return fmt.Errorf("tracefs is not mounted (looked in %s); mount it as root with: mount -t tracefs nodev /sys/kernel/tracing", strings.Join(roots(), ", "))
}

// ErrBusy is Take's error when another contend run holds the tracefs
// mount; ErrStuck when the settings of a killed run could not be
// restored (the message says which, and to run contend cleanup).
var (
	ErrBusy  = errors.New("another contend run holds tracefs")
	ErrStuck = errors.New("could not be restored")
)

// BusyError is Take's error when another process holds the tracefs
// mount (it wraps ErrBusy): the holder as the machine-wide lock names
// its own (pid and command, from /proc/locks).
type BusyError struct {
	Root   string
	Holder lock.Holder
}

func (e *BusyError) Error() string {
	if e.Holder.Pid == 0 {
		return fmt.Sprintf("%v %s (its pid is not in /proc/locks)", ErrBusy, e.Root)
	}
	return fmt.Sprintf("%v %s: pid %d (%s)", ErrBusy, e.Root, e.Holder.Pid, esc.Line(e.Holder.Command))
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Claim is one run's hold on a tracefs mount: an flock on its directory,
// so that two runs never save and restore each other's settings, and the
// journal of the settings it saved.
type Claim struct {
	Root string
	// Recovered says what Take restored of runs killed with SIGKILL ("" if
	// nothing), for the run's warnings.
	Recovered string
	flock     *os.File
	saved     []Setting
	journal   *Entry
}

// Take claims root without waiting (a *BusyError), then restores the settings
// that runs killed with SIGKILL left in it (ErrStuck when it cannot).
func Take(root string) (*Claim, error) {
	fl, err := os.Open(root)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %v", root, err)
	}
	if err := unix.Flock(int(fl.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		h := lock.FlockHolder(fl)
		fl.Close()
		return nil, &BusyError{Root: root, Holder: h}
	}
	c := &Claim{Root: root, flock: fl}
	c.Recovered, err = RecoverStale(root)
	if stale, _ := Stale(root); len(stale) > 0 {
		fl.Close()
		return nil, fmt.Errorf("%s %w (%v); run 'contend cleanup' as root", stale[0].Describe(), ErrStuck, err)
	}
	return c, nil
}

// Save reads each file (relative to Root, or absolute), proves that it
// can be written by writing its value back, and journals the values
// (Begin) before the caller changes anything. Release restores them in
// the order of files. On an error the claim is released.
func (c *Claim) Save(files []string) error {
	for _, f := range files {
		p := c.path(f)
		b, err := os.ReadFile(p)
		if err != nil {
			return c.fail(fmt.Errorf("cannot read %s: %v (run as root)", p, err))
		}
		if err := os.WriteFile(p, b, 0); err != nil {
			if errors.Is(err, os.ErrPermission) {
				return c.fail(fmt.Errorf("no permission to write %s; run as root", p))
			}
			return c.fail(fmt.Errorf("cannot write %s: %v", p, err))
		}
		c.saved = append(c.saved, Setting{File: f, Value: string(b)})
	}
	var err error
	if c.journal, err = Begin(c.Root, c.saved); err != nil {
		return c.fail(fmt.Errorf("%v; without it a killed run could not be undone", err))
	}
	return nil
}

// Value returns the value Save found in file, without surrounding space.
func (c *Claim) Value(file string) string {
	for _, s := range c.saved {
		if s.File == file {
			return strings.TrimSpace(s.Value)
		}
	}
	return ""
}

// Release writes back every value Save found, removes the journal and
// lets another run claim the mount. It tries every file, keeps the
// journal when one failed (contend cleanup retries) and returns the first
// error. A released claim does nothing.
func (c *Claim) Release() error {
	if c == nil || c.flock == nil {
		return nil
	}
	var first error
	for _, s := range c.saved {
		p := c.path(s.File)
		if err := os.WriteFile(p, []byte(s.Value), 0); err != nil && first == nil {
			first = fmt.Errorf("could not restore %s to %q: %v; 'contend cleanup' retries, or restore it by hand", p, strings.TrimSpace(s.Value), err)
		}
	}
	if first == nil {
		c.journal.Done()
	}
	c.flock.Close()
	c.flock = nil
	return first
}

func (c *Claim) path(f string) string {
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(c.Root, f)
}

// fail lets the claim go after a failed Save: nothing was changed.
func (c *Claim) fail(err error) error {
	c.saved = nil
	c.Release()
	return err
}
