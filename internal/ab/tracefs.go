package ab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"contend/internal/tracejournal"
)

// TraceRoots are where tracefs is looked for, in order. The environment
// variable CONTEND_TRACEFS replaces them (tests use a fake directory).
var TraceRoots = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

// TraceSwitch turns a group of tracefs events off (side A) or on (side B)
// and puts every event back the way it found it.
type TraceSwitch struct {
	Spec  string // as given: "lock" or "lock:contention_begin"
	Root  string // the tracefs mount used
	files []string
	saved map[string]string
	lock  *os.File // flock on Root: one switch at a time
	// Recovered says what NewTraceSwitch restored of a contend killed
	// with SIGKILL ("" if nothing), for the run's warnings.
	Recovered string
	journal   *tracejournal.Entry
}

// NewTraceSwitch finds tracefs and the events of spec, reads their state,
// and checks that they can be written, before anything runs. Its errors
// are one line and say what to do.
func NewTraceSwitch(spec string) (*TraceSwitch, error) {
	roots := TraceRoots
	if env := os.Getenv("CONTEND_TRACEFS"); env != "" {
		roots = []string{env}
	}
	root := ""
	for _, r := range roots {
		if st, err := os.Stat(filepath.Join(r, "events")); err == nil && st.IsDir() {
			root = r
			break
		}
	}
	if root == "" {
		return nil, fmt.Errorf("--trace-events: tracefs is not mounted (looked in %s); mount it as root with: mount -t tracefs nodev /sys/kernel/tracing", strings.Join(roots, ", "))
	}
	group, event, _ := strings.Cut(spec, ":")
	if group == "" || strings.ContainsAny(spec, "/ ") || strings.Count(spec, ":") > 1 {
		return nil, fmt.Errorf("--trace-events: %q is not accepted; accepted: GROUP or GROUP:EVENT, such as lock or lock:contention_begin", spec)
	}
	dir := filepath.Join(root, "events", group)
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("--trace-events: no event group %q in %s/events (see %s/available_events)", group, root, root)
	}
	var files []string
	if event != "" {
		f := filepath.Join(dir, event, "enable")
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("--trace-events: no event %q in group %q (see %s/available_events)", event, group, root)
		}
		files = []string{f}
	} else {
		fs, _ := filepath.Glob(filepath.Join(dir, "*", "enable"))
		sort.Strings(fs)
		if len(fs) == 0 {
			return nil, fmt.Errorf("--trace-events: event group %q in %s has no events", group, root)
		}
		files = fs
	}
	// Two runs switching the same events would each restore what it found,
	// which may be the other's setting: allow one at a time.
	lock, err := os.Open(root)
	if err != nil {
		return nil, fmt.Errorf("--trace-events: cannot open %s: %v", root, err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("--trace-events: another contend run is switching trace events in %s; wait for it to end", root)
	}
	ts := &TraceSwitch{Spec: spec, Root: root, files: files, saved: map[string]string{}, lock: lock}
	fail := func(err error) (*TraceSwitch, error) {
		lock.Close()
		return nil, err
	}
	// A contend killed with SIGKILL left its settings: put them back
	// before reading the state to restore.
	ts.Recovered, err = tracejournal.RecoverStale(root)
	if stale, _ := tracejournal.Stale(root); len(stale) > 0 {
		return fail(fmt.Errorf("--trace-events: %s could not be restored (%v); run 'contend cleanup' as root", stale[0].Describe(), err))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fail(fmt.Errorf("--trace-events: cannot read %s: %v (run as root)", f, err))
		}
		v := strings.TrimSpace(string(b))
		ts.saved[f] = v
		// Writing the current value back proves the permission without
		// changing anything.
		if err := os.WriteFile(f, []byte(v+"\n"), 0); err != nil {
			if errors.Is(err, os.ErrPermission) {
				return fail(fmt.Errorf("--trace-events: no permission to write %s; run as root", f))
			}
			return fail(fmt.Errorf("--trace-events: cannot write %s: %v", f, err))
		}
	}
	var settings []tracejournal.Setting
	for _, f := range files {
		settings = append(settings, tracejournal.Setting{File: f, Value: ts.saved[f] + "\n"})
	}
	if ts.journal, err = tracejournal.Begin(root, settings); err != nil {
		return fail(fmt.Errorf("--trace-events: %v; without it a killed run could not be undone", err))
	}
	return ts, nil
}

// Set enables (on) or disables every event of the switch.
func (t *TraceSwitch) Set(on bool) error {
	v := "0\n"
	if on {
		v = "1\n"
	}
	for _, f := range t.files {
		if err := os.WriteFile(f, []byte(v), 0); err != nil {
			return fmt.Errorf("--trace-events: cannot write %s: %v", f, err)
		}
	}
	return nil
}

// State describes the side's setting for the result file.
func (t *TraceSwitch) State(on bool) string {
	if on {
		return t.Spec + " enabled"
	}
	return t.Spec + " disabled"
}

// Restore puts back every event's state as NewTraceSwitch found it,
// removes the journal and lets another run switch events. It tries every file and returns the
// first error.
func (t *TraceSwitch) Restore() error {
	var first error
	for _, f := range t.files {
		if err := os.WriteFile(f, []byte(t.saved[f]+"\n"), 0); err != nil && first == nil {
			first = fmt.Errorf("could not restore %s to %s: %v; 'contend cleanup' retries, or restore it by hand", f, t.saved[f], err)
		}
	}
	if first == nil {
		// Kept after a failure: `contend cleanup` retries.
		t.journal.Done()
		t.journal = nil
	}
	if t.lock != nil {
		t.lock.Close()
		t.lock = nil
	}
	return first
}

// Saved returns the state found at the start, event file -> value.
func (t *TraceSwitch) Saved() map[string]string { return t.saved }
