package ab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"contend/internal/tracejournal"
)

// TraceSwitch turns a group of tracefs events off (side A) or on (side B)
// and puts every event back the way it found it.
type TraceSwitch struct {
	Spec  string // as given: "lock" or "lock:contention_begin"
	Root  string // the tracefs mount used
	files []string
	saved map[string]string
	claim *tracejournal.Claim // one switch at a time, and the journal
	// Recovered says what NewTraceSwitch restored of a contend killed
	// with SIGKILL ("" if nothing), for the run's warnings.
	Recovered string
}

// NewTraceSwitch finds tracefs and the events of spec, reads their state,
// and checks that they can be written, before anything runs. Its errors
// are one line and say what to do.
func NewTraceSwitch(spec string) (*TraceSwitch, error) {
	root, err := tracejournal.FindRoot()
	if err != nil {
		return nil, fmt.Errorf("--trace-events: %v", err)
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
	// which may be the other's setting: allow one at a time. A contend
	// killed with SIGKILL left its settings: Take puts them back before
	// the state to restore is read.
	claim, err := tracejournal.Take(root)
	if errors.Is(err, tracejournal.ErrBusy) {
		return nil, fmt.Errorf("--trace-events: %v; wait for it to end", err)
	}
	if err != nil {
		return nil, fmt.Errorf("--trace-events: %v", err)
	}
	if err := claim.Save(files); err != nil {
		return nil, fmt.Errorf("--trace-events: %v", err)
	}
	ts := &TraceSwitch{Spec: spec, Root: root, files: files, saved: map[string]string{}, claim: claim, Recovered: claim.Recovered}
	for _, f := range files {
		ts.saved[f] = claim.Value(f)
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
// removes the journal and lets another run switch events. It tries every
// file and returns the first error.
func (t *TraceSwitch) Restore() error {
	return t.claim.Release()
}

// Saved returns the state found at the start, event file -> value.
func (t *TraceSwitch) Saved() map[string]string { return t.saved }
