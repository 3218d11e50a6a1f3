// Package tracejournal keeps the tracefs settings a contend run changes in
// a durable journal, so that they can be restored after contend was
// killed with SIGKILL.
//
// Before a run writes any tracefs file it records, in a file of the
// runtime directory of internal/ipcown (ipcown.Dir), its pid, its start
// time, the boot, the tracefs root and every file it will touch with the
// value it found. A normal end removes the file (Done). An entry whose
// contend is dead (no such process, a zombie, or another process under
// the pid) is stale: `contend cleanup` and the next run that uses tracefs
// write the old values back (Restore).
//
// A run takes tracefs through a Claim (claim.go): the mount found
// (FindRoot), held by one run at a time (an flock), the stale journals
// of its root restored first, the settings read, proven writable and
// journaled (Save), and written back at the end (Release). The lock
// evidence collector and ab's --trace-events both work this way.
package tracejournal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"contend/internal/ipcown"
	"contend/internal/safefile"
)

// Setting is one tracefs file (relative to Root, or absolute) and the
// value found before the run changed it.
type Setting struct {
	File  string `json:"file"`
	Value string `json:"value"`
}

// Entry is the journal of one contend run's tracefs changes.
type Entry struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // /proc/PID/stat field 22, against pid reuse
	Boot  string `json:"boot"`  // tracefs settings do not survive a reboot
	Root  string `json:"root"`  // the tracefs mount
	// Settings are restored in this order (events off first).
	Settings []Setting `json:"settings"`
	// Exe is the contend executable that wrote the journal (see
	// ipcown.Entry.Exe); "" in journals of older versions.
	Exe string `json:"exe,omitempty"`

	path string
}

// prefix names the journal files; ipcown's entries start with a pid and
// never match it.
const prefix = "tracefs-"

// dir is ipcown.Dir; tests replace it.
var dir = ipcown.Dir

// Begin writes the journal of the current process for root before it
// changes anything. The file is written whole or not at all (rename).
func Begin(root string, settings []Setting) (*Entry, error) {
	e := &Entry{PID: os.Getpid(), Start: start(os.Getpid()), Boot: ipcown.BootID(), Root: root, Settings: settings, Exe: ipcown.Self()}
	d, err := dir()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	e.path = filepath.Join(d, fmt.Sprintf("%s%d-%d.json", prefix, e.PID, e.Start))
	// A fresh temporary (O_EXCL, no link followed), renamed into place.
	if err := safefile.WriteFile(e.path, b, 0o600); err != nil {
		return nil, fmt.Errorf("cannot write the tracefs journal: %v", err)
	}
	return e, nil
}

// Done removes the journal after the settings were restored.
func (e *Entry) Done() error {
	if e == nil || e.path == "" {
		return nil
	}
	if err := os.Remove(e.path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Path is the journal file.
func (e *Entry) Path() string { return e.path }

// Stale lists the journals whose contend is dead, for every root when
// root is "", else for that root only.
func Stale(root string) ([]*Entry, error) {
	d, err := dir()
	if err != nil {
		return nil, err
	}
	names, _ := filepath.Glob(filepath.Join(d, prefix+"*.json"))
	var out []*Entry
	for _, p := range names {
		b, err := safefile.ReadFile(p, safefile.Self)
		if err != nil {
			continue
		}
		e := &Entry{}
		if json.Unmarshal(b, e) != nil || e.PID <= 0 {
			continue // never happens: the file is renamed into place whole
		}
		e.path = p
		if ipcown.Alive(e.PID, e.Start) {
			continue
		}
		if root != "" && filepath.Clean(e.Root) != filepath.Clean(root) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// Restore writes the saved values back and removes the journal. The
// journal of another boot, or of a tracefs root that is gone, is removed
// without writing anything (its settings went with it). It tries every
// file, keeps the journal if one failed, and returns the first error.
func (e *Entry) Restore() error {
	_, err := os.Stat(filepath.Join(e.Root, "events"))
	if e.Boot == ipcown.BootID() && err == nil {
		var first error
		for _, s := range e.Settings {
			p := s.File
			if !filepath.IsAbs(p) {
				p = filepath.Join(e.Root, p)
			}
			if werr := os.WriteFile(p, []byte(s.Value), 0); werr != nil && first == nil {
				first = fmt.Errorf("cannot restore %s to %q: %v", p, strings.TrimSpace(s.Value), werr)
			}
		}
		if first != nil {
			return first
		}
	}
	if err := os.Remove(e.path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Describe says whose settings the entry holds, for messages.
func (e *Entry) Describe() string {
	return fmt.Sprintf("tracefs settings in %s left by contend pid %d (killed)", e.Root, e.PID)
}

// RecoverStale restores the stale journals of root and returns a note
// saying what it restored ("" if nothing), and the first error.
func RecoverStale(root string) (string, error) {
	stale, err := Stale(root)
	if err != nil {
		return "", err
	}
	var pids []string
	var first error
	for _, e := range stale {
		if err := e.Restore(); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		pids = append(pids, strconv.Itoa(e.PID))
	}
	if len(pids) == 0 {
		return "", first
	}
	return fmt.Sprintf("restored the tracefs settings in %s left by killed contend pid %s", root, strings.Join(pids, ", ")), first
}

// start is the start time of process pid, as ipcown records it.
func start(pid int) uint64 {
	st, _ := ipcown.ProcStart(pid)
	return st
}
