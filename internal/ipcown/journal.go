package ipcown

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Dir returns the journal directory, created if needed: /run/contend for
// root, else $XDG_RUNTIME_DIR/contend, else /tmp/contend-UID; an absolute
// $CONTEND_IPC_DIR replaces them (a test suite's own, so that its cleanup
// never meets the entries of other suites or of real runs). It must be a
// directory (not a symlink) owned by this user and writable by nobody else.
func Dir() (string, error) {
	if testDir != "" {
		return testDir, nil
	}
	uid := os.Geteuid()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("contend-%d", uid))
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		dir = filepath.Join(x, "contend")
	}
	if uid == 0 {
		if fi, err := os.Stat("/run"); err == nil && fi.IsDir() {
			dir = "/run/contend"
		}
	}
	if x := os.Getenv(DirEnv); x != "" && filepath.IsAbs(x) {
		dir = x
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", fmt.Errorf("cannot create the IPC journal directory: %v", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("cannot use the IPC journal directory: %v", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != uid || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("the IPC journal directory %s is not a directory owned by uid %d and writable only by it: remove it", dir, uid)
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
}

// StaleEntries lists the journal entries whose contend process is dead: no
// process with its pid, a zombie, or another process with the same pid (a
// different start time or boot). An entry of a live contend is a
// repetition in flight and is left alone.
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
		b, err := os.ReadFile(filepath.Join(dir, name))
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
		if e.Boot == boot && !torn {
			if set, ok := e.Find(); ok {
				s.Set = set
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// Remove removes the stale entry's set, if it still matches the entry, and
// then the entry.
func (s Stale) Remove() error {
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
