package ipcown

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"contend/internal/safefile"
)

// Dir returns the journal directory, created if needed: contend's
// runtime directory (safefile.RuntimeDir: /run/contend for root, else
// $XDG_RUNTIME_DIR/contend, else /tmp/contend-UID), a directory (not a
// symlink) owned by this user and writable by nobody else. An absolute
// $CONTEND_IPC_DIR replaces it (a test suite's own, so that its cleanup
// never meets the entries of other suites or of real runs), checked the
// same way.
func Dir() (string, error) {
	if testDir != "" {
		return testDir, nil
	}
	if x := os.Getenv(DirEnv); x != "" && filepath.IsAbs(x) {
		if err := safefile.Dir(x, 0o700, os.Geteuid()); err != nil {
			return "", fmt.Errorf("cannot use the IPC journal directory %s=%s: %v", DirEnv, x, err)
		}
		return x, nil
	}
	dir, err := safefile.RuntimeDir()
	if err != nil {
		return "", fmt.Errorf("cannot use the IPC journal directory: %v", err)
	}
	return dir, nil
}

// DirEnv names the variable that replaces the journal directory.
const DirEnv = "CONTEND_IPC_DIR"

// testDir replaces Dir in this package's tests, so that they never meet
// the entries of real runs (and `contend cleanup` never sees theirs).
var testDir string

// Stale is the journal entry of a contend process that died (SIGKILL)
// during a repetition, with the set it left, if any.
type Stale struct {
	Entry
	File string
	// Set is the set under the entry's key that matches it; ID -1 if none.
	Set Set
	// OtherNS is set for an entry of this boot written in another IPC
	// namespace (unshare -i, a container sharing the journal directory):
	// its set, if any, is visible only there, so it was not looked for,
	// and the entry is not removed here (Remove refuses it).
	OtherNS bool
}

// StaleEntries lists the journal entries whose contend process is dead: no
// process with its pid, a zombie, or another process with the same pid (a
// different start time or boot). An entry of a live contend is a
// repetition in flight and is left alone. An entry of this boot from
// another IPC namespace is listed with OtherNS and no set; one without a
// namespace (an older contend's) counts as of this namespace.
func StaleEntries() ([]Stale, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	boot := BootID()
	ns := IPCNS()
	var out []Stale
	for _, de := range ents {
		name := de.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		pidText, _, _ := strings.Cut(name, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil {
			continue
		}
		var e Entry
		b, err := safefile.ReadFile(filepath.Join(dir, name), safefile.Self)
		if err != nil {
			continue
		}
		torn := json.Unmarshal(b, &e) != nil || e.PID != pid
		if torn {
			// A write cut short by SIGKILL, before the child started.
			e = Entry{PID: pid, Boot: boot}
		}
		if Alive(pid, e.Start) && (torn || e.Boot == boot) {
			continue
		}
		s := Stale{Entry: e, File: filepath.Join(dir, name), Set: Set{ID: -1}}
		s.OtherNS = e.Boot == boot && !torn && e.IPCNS != 0 && ns != 0 && e.IPCNS != ns
		if e.Boot == boot && !torn && !s.OtherNS {
			if set, ok := e.Find(); ok {
				s.Set = set
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// Remove removes the stale entry's set, if it still matches the entry, and
// then the entry. It refuses an entry of another IPC namespace: only a
// cleanup in that namespace can see (and remove) its set.
func (s Stale) Remove() error {
	if s.OtherNS {
		return fmt.Errorf("the journal entry %s is of IPC namespace ipc:[%d], not this one (ipc:[%d]): run 'contend cleanup' in that namespace", s.File, s.IPCNS, IPCNS())
	}
	if s.Set.ID >= 0 {
		if set, ok := s.Entry.Find(); ok && set.ID == s.Set.ID {
			if err := Remove(set.ID); err != nil {
				return fmt.Errorf("cannot remove semaphore set %d: %v", set.ID, err)
			}
		}
	}
	if err := os.Remove(s.File); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Alive tells whether process pid runs: it exists, is not a zombie, and
// (when start is not 0) started at start. A zombie is dead: it holds no
// resources and can create nothing.
func Alive(pid int, start uint64) bool {
	st, state := ProcStart(pid)
	if state == "" || state == "Z" || state == "X" || state == "x" {
		return false
	}
	return start == 0 || st == start
}

// NSProcess returns the pid of a process in the IPC namespace with inode
// ns (one whose /proc/PID/ns/ipc this process may read), or 0 if none is
// found: what `contend cleanup` names for nsenter.
func NSProcess(ns uint64) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, de := range ents {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/proc", de.Name(), "ns", "ipc"), &st) == nil && st.Ino == ns {
			return pid
		}
	}
	return 0
}
