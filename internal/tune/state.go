package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"contend/internal/plural"
	"contend/internal/safefile"
)

// State is what Apply saved before changing anything: the original value
// of every system file it changes. It stays on disk until Reset has put
// every value back, so a crash between the two loses nothing.
type State struct {
	Saved   time.Time `json:"saved"`
	Pid     int       `json:"pid"`
	Entries []Entry   `json:"entries"`
}

// Entry is one saved original value.
type Entry struct {
	Setting string `json:"setting"`
	Path    string `json:"path"` // relative to the root
	Old     string `json:"old"`
}

func (s *State) find(path string) int {
	for i, e := range s.Entries {
		if e.Path == path {
			return i
		}
	}
	return -1
}

// LoadState reads the saved state at path; nil and no error when there
// is none.
func LoadState(path string) (*State, error) {
	// A link or another user's file is refused: the state names files
	// that Reset writes as root.
	b, err := safefile.ReadFile(path, safefile.SelfOrRoot)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the saved tune state %s: %v", path, err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("the saved tune state %s is damaged (%v): restore the values by hand (its old values), then delete it", path, err)
	}
	return &s, nil
}

// saveState writes s to path atomically (safefile.WriteFile: a fresh
// temporary file in the same directory, synced, renamed over path, the
// directory synced).
func saveState(path string, s *State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefile.WriteFile(path, append(b, '\n'), 0o600)
}

// afterWrite, when set (tests), is called after each system file Apply
// changes: a test kills the process there to simulate a crash.
var afterWrite func(path string)

// Apply sets opt on the machine under root. Before changing anything it
// saves the current value of every file it will change in the state file
// (statePath); a state already there keeps its original values, so a
// second Apply before Reset never saves tuned values as originals.
func Apply(root, statePath string, opt Options) ([]Result, error) {
	settings := Settings(root, opt)
	prev, err := LoadState(statePath)
	if err != nil {
		return nil, err
	}
	st := &State{Saved: time.Now().UTC(), Pid: os.Getpid()}
	if prev != nil {
		st = prev
	}
	cur := map[string]string{}
	added := map[string]bool{}
	for _, s := range settings {
		for _, f := range s.Files {
			v, err := read(root, f.Path)
			if err != nil {
				continue
			}
			cur[f.Path] = v
			if v != f.Want && st.find(f.Path) < 0 {
				st.Entries = append(st.Entries, Entry{s.Name, f.Path, v})
				added[f.Path] = true
			}
		}
	}
	if len(added) > 0 {
		if err := saveState(statePath, st); err != nil {
			return nil, fmt.Errorf("saving the previous values to %s before changing anything: %v; nothing was changed (run as root, or set CONTEND_TUNE_STATE to a writable file)", statePath, err)
		}
	}
	var out []Result
	for _, s := range settings {
		r := Result{Name: s.Name, What: s.What}
		if s.NotAvail != "" {
			r.Status, r.Detail = StatusNotAvail, s.NotAvail
			out = append(out, r)
			continue
		}
		if len(s.Files) == 0 {
			r.Status, r.Detail = StatusLeft, s.Note
			out = append(out, r)
			continue
		}
		var set, already, failed int
		var why string
		var change string
		for _, f := range s.Files {
			v, ok := cur[f.Path]
			if !ok {
				failed++
				why = "cannot read " + shown(f.Path)
				continue
			}
			if v == f.Want {
				already++
				continue
			}
			if err := write(root, f.Path, f.Want); err != nil {
				failed++
				why = refused(err)
				if added[f.Path] {
					st.Entries = append(st.Entries[:st.find(f.Path)], st.Entries[st.find(f.Path)+1:]...)
				}
				continue
			}
			set++
			change = v + " -> " + f.Want
			if afterWrite != nil {
				afterWrite(f.Path)
			}
		}
		switch {
		case set > 0:
			r.Status = StatusSet
			if len(s.Files) == 1 {
				r.Detail = change
			} else {
				r.Detail = fmt.Sprintf("%d of %d files (%s)", set, len(s.Files), s.Files[0].Want)
				if already > 0 {
					r.Detail += fmt.Sprintf(", %d already so", already)
				}
			}
			if failed > 0 {
				r.Detail += fmt.Sprintf(", %d refused: %s", failed, why)
			}
		case failed > 0 && already == 0:
			r.Status, r.Detail = StatusNotAvail, why
		case failed > 0:
			r.Status, r.Detail = StatusAlready, fmt.Sprintf("%d of %d files; %d refused: %s", already, len(s.Files), failed, why)
		default:
			r.Status, r.Detail = StatusAlready, s.Files[0].Want
		}
		if s.Note != "" {
			r.Detail = strings.TrimPrefix(r.Detail+"; "+s.Note, "; ")
		}
		out = append(out, r)
	}
	if len(added) > 0 {
		// Drop the entries of writes the kernel refused (their values
		// never changed); the state was saved before any change.
		if len(st.Entries) == 0 {
			os.Remove(statePath)
		} else if err := saveState(statePath, st); err != nil {
			return out, fmt.Errorf("updating %s: %v", statePath, err)
		}
	}
	return out, nil
}

// Plan says what Apply would do, changing nothing.
func Plan(root string, opt Options) []Result {
	var out []Result
	for _, s := range Settings(root, opt) {
		r := Result{Name: s.Name, What: s.What}
		switch {
		case s.NotAvail != "":
			r.Status, r.Detail = StatusNotAvail, s.NotAvail
		case len(s.Files) == 0:
			r.Status, r.Detail = StatusLeft, s.Note
		default:
			n := 0
			var change string
			for _, f := range s.Files {
				if v, err := read(root, f.Path); err == nil && v != f.Want {
					n++
					change = v + " -> " + f.Want
				}
			}
			switch {
			case n == 0:
				r.Status, r.Detail = StatusAlready, s.Files[0].Want
			case len(s.Files) == 1:
				r.Status, r.Detail = StatusWouldSet, change
			default:
				r.Status, r.Detail = StatusWouldSet, fmt.Sprintf("%d of %d files to %s", n, len(s.Files), s.Files[0].Want)
			}
			if s.Note != "" {
				r.Detail += "; " + s.Note
			}
		}
		out = append(out, r)
	}
	return out
}

// Reset puts back every value saved in the state file and removes it. A
// file that already holds its saved value counts as restored and is not
// written (a tune killed before it dropped the entry of a write the kernel
// refused leaves such entries: an IRQ whose affinity cannot be changed).
// Values that cannot be written back stay in the state, and the error
// says which.
func Reset(root, statePath string) ([]Result, error) {
	st, err := LoadState(statePath)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return []Result{{Name: "all", Status: StatusNotSaved, Detail: "no saved state at " + statePath + ": nothing to put back"}}, nil
	}
	type agg struct {
		written, already, failed int
		change, why              string // the last change written; the last refusal
	}
	by := map[string]*agg{}
	var names []string
	var keep []Entry
	var firstErr error
	for _, e := range st.Entries {
		a := by[e.Setting]
		if a == nil {
			a = &agg{}
			by[e.Setting] = a
			names = append(names, e.Setting)
		}
		cur, rerr := read(root, e.Path)
		if rerr == nil && cur == e.Old {
			a.already++
			continue
		}
		if err := write(root, e.Path, e.Old); err != nil {
			a.failed++
			a.why = refused(err)
			if rerr == nil {
				a.why += " (it holds " + cur + ")"
			}
			keep = append(keep, e)
			if firstErr == nil {
				firstErr = fmt.Errorf("putting back %s = %s: %s", shown(e.Path), e.Old, a.why)
			}
			continue
		}
		a.written++
		a.change = cur + " -> " + e.Old
	}
	var out []Result
	for _, n := range names {
		a := by[n]
		r := Result{Name: n, Status: StatusRestored}
		total := a.written + a.already + a.failed
		switch {
		case a.failed > 0:
			r.Status = StatusFailed
			r.Detail = fmt.Sprintf("%d of %s not put back: %s", a.failed, plural.N(total, "file", "files"), a.why)
		case total == 1 && a.written == 1:
			r.Detail = a.change
		case total == 1:
			r.Detail = "already held its saved value"
		default:
			r.Detail = plural.N(total, "file", "files")
			if a.already > 0 {
				r.Detail += fmt.Sprintf(" (%d already held the saved value)", a.already)
			}
		}
		out = append(out, r)
	}
	if len(keep) > 0 {
		st.Entries = keep
		if err := saveState(statePath, st); err != nil {
			return out, fmt.Errorf("%v; and updating %s: %v", firstErr, statePath, err)
		}
		return out, fmt.Errorf("%v; the values not put back stay saved in %s (run 'contend tune --reset' again as root)", firstErr, statePath)
	}
	if err := os.Remove(statePath); err != nil {
		return out, fmt.Errorf("every value is back, but removing %s: %v", statePath, err)
	}
	return out, nil
}

// Current returns the tune-related facts of the machine under root, for
// the environment fingerprint of every result file: keys tune.*.
func Current(root string) map[string]string {
	m := map[string]string{}
	path := StatePath(root)
	if st, err := LoadState(path); err != nil {
		m["tune.state"] = err.Error()
	} else if st != nil {
		m["tune.state"] = fmt.Sprintf("tuned by contend tune (%s saved in %s)", plural.N(len(st.Entries), "value", "values"), path)
	} else {
		m["tune.state"] = "not tuned by contend"
	}
	if v, err := read(root, "proc/sys/kernel/randomize_va_space"); err == nil {
		m["tune.aslr"] = v
	}
	if v, err := read(root, "sys/devices/system/cpu/intel_pstate/no_turbo"); err == nil {
		m["tune.turbo"] = "intel_pstate/no_turbo " + v
	} else if v, err := read(root, "sys/devices/system/cpu/cpufreq/boost"); err == nil {
		m["tune.turbo"] = "cpufreq/boost " + v
	} else {
		m["tune.turbo"] = "no control"
	}
	if v, err := read(root, "proc/sys/kernel/perf_event_max_sample_rate"); err == nil {
		m["tune.perf_rate"] = v
	}
	files, _ := filepath.Glob(filepath.Join(root, "proc/irq/[0-9]*/smp_affinity_list"))
	count := map[string]int{}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			count[strings.TrimSpace(string(b))]++
		}
	}
	if len(count) > 0 {
		var ks []string
		for k := range count {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool {
			return count[ks[i]] > count[ks[j]] || count[ks[i]] == count[ks[j]] && ks[i] < ks[j]
		})
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%d on CPU %s", count[k], k))
		}
		m["tune.irq"] = strings.Join(parts, ", ")
	}
	return m
}
