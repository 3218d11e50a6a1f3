// Package evidence collects the kernel's own account of each repetition:
// perf software (and hardware) counters of the child and everything it
// spawns, the run-queue delay of its threads, system-wide pressure, vmstat
// and interrupt deltas, and, opt-in, kernel lock contention from tracefs.
//
// A Set is opened once per run; Start starts a repetition's child stopped
// before its first instruction, starts every collector on it, and lets it
// go; Stop, called after the child and its process group are reaped,
// returns the repetition's metrics. Nothing runs in the parent while the
// child runs: collectors act before the child's first instruction and
// after it is reaped. A collector the kernel does not support is recorded
// as not available, with the reason, in the file's header, once per run.
package evidence

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"contend/internal/results"
)

// Prefix starts every evidence metric's name; SystemPrefix starts the
// system-wide ones.
const (
	Prefix       = "k."
	SystemPrefix = "k.sys."
)

// IsEvidence tells whether metric name is an evidence metric.
func IsEvidence(name string) bool { return strings.HasPrefix(name, Prefix) }

// IsSystemWide tells whether metric name is a system-wide evidence metric.
func IsSystemWide(name string) bool { return strings.HasPrefix(name, SystemPrefix) }

// A Collector gathers one kind of evidence.
type Collector interface {
	// Name is the collector's name as --evidence takes it.
	Name() string
	// Metrics describes every metric Stop may return.
	Metrics() []results.Metric
	// Start is called with the child stopped before its first
	// instruction (pid is its process id).
	Start(pid int) error
	// Stop is called after the child and its process group are reaped.
	// It returns the repetition's metrics and notes; an error makes the
	// repetition lack this collector's metrics (with a note).
	Stop() (map[string]float64, []string, error)
	// Close releases what the collector holds, restoring any kernel
	// setting it changed.
	Close() error
}

// Collectors lists every collector name, in order; Default the cheap
// ones run when --evidence is not given: none of them adds work to the
// child's context switches, faults or system calls. The perf counters
// (perf, faults, hw) are opt-in: an inherited counter costs every context
// switch of the child's tasks (see softwareCounters).
var (
	Collectors = []string{"perf", "faults", "hw", "sched", "system", "lock", "locktrace", "offcpu", "profile"}
	Default    = []string{"sched", "system"}
)

// Parse reads an --evidence list: "default", "none", or a comma list of
// collector names. A list naming only opt-in collectors ("lock") adds
// them to the defaults. The error is one line naming the flag.
func Parse(list string) ([]string, error) { return ParseFlag("--evidence", list) }

// ParseFlag is Parse for a flag of another name (ab's --a-evidence and
// --b-evidence), which its errors name.
func ParseFlag(flag, list string) ([]string, error) {
	list = strings.TrimSpace(list)
	accepted := "default, none, or a comma list of " + strings.Join(Collectors, ", ")
	if list == "" {
		return nil, fmt.Errorf("%s: the list is empty; accepted: %s", flag, accepted)
	}
	if list == "default" {
		return append([]string{}, Default...), nil
	}
	if list == "none" {
		return nil, nil
	}
	seen := map[string]bool{}
	onlyOptIn := true
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "default":
			for _, d := range Default {
				seen[d] = true
			}
		case n == "none":
			return nil, fmt.Errorf("%s: none cannot be combined with other collectors; accepted: %s", flag, accepted)
		case known(n):
			seen[n] = true
			if isDefault(n) {
				onlyOptIn = false
			}
		default:
			return nil, fmt.Errorf("%s: unknown collector %q; accepted: %s", flag, n, accepted)
		}
	}
	if seen["lock"] && seen["locktrace"] {
		return nil, fmt.Errorf("%s: lock and locktrace cannot be combined (both record k.lock.*); accepted: %s", flag, accepted)
	}
	// (Exclusive says the same to completion.)
	if onlyOptIn {
		for _, d := range Default {
			seen[d] = true
		}
	}
	var out []string
	for _, n := range Collectors {
		if seen[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

// Exclusive tells whether collector n cannot be added to the list given:
// lock and locktrace record the same metrics.
func Exclusive(given []string, n string) bool {
	return (n == "lock" && slices.Contains(given, "locktrace")) || (n == "locktrace" && slices.Contains(given, "lock"))
}

func known(n string) bool {
	for _, c := range Collectors {
		if c == n {
			return true
		}
	}
	return false
}

func isDefault(n string) bool {
	for _, c := range Default {
		if c == n {
			return true
		}
	}
	return false
}

// A Set is the collectors of one run.
type Set struct {
	// Active are the collectors that work on this machine.
	Active []Collector
	// Avail maps every requested collector to "available" or
	// "not available: REASON".
	Avail map[string]string
	view  bool // a View: the collectors belong to another Set
}

// Open opens the collectors names (as Parse returns them) for a run of
// unknown size (OpenFor, Run{}).
func Open(names []string) *Set { return OpenFor(names, Run{}) }

// OpenFor opens the collectors names (as Parse returns them), the BPF
// ones with maps sized for run r. It never fails: a collector that
// cannot work is recorded in Avail with the reason. Close the set when
// the run ends, on every path.
func OpenFor(names []string, r Run) *Set {
	s := &Set{Avail: map[string]string{}}
	sizes := sizesFor(r)
	for _, n := range names {
		var c Collector
		var err error
		switch n {
		case "perf":
			c, err = openPerf(n, softwareCounters)
		case "faults":
			c, err = openPerf(n, faultCounters)
		case "hw":
			c, err = openPerf(n, hardwareCounters)
		case "sched":
			c, err = openSched()
		case "system":
			c, err = openSystem()
		case "lock":
			c, err = openLock(sizes)
		case "locktrace":
			c, err = openLockTrace(n)
		case "offcpu":
			c, err = openOffcpu(sizes)
		case "profile":
			c, err = openProfile(sizes.CPUs)
		default:
			err = fmt.Errorf("unknown collector")
		}
		if err != nil {
			s.Avail[n] = "not available: " + err.Error()
			continue
		}
		s.Avail[n] = "available"
		if n, ok := c.(noter); ok {
			if note := n.note(); note != "" {
				s.Avail[c.Name()] = "available; " + note
			}
		}
		s.Active = append(s.Active, c)
	}
	return s
}

// noter is a collector that works in part and says what is missing.
type noter interface{ note() string }

// Metrics describes the metrics of the active collectors.
func (s *Set) Metrics() []results.Metric {
	if s == nil {
		return nil
	}
	var ms []results.Metric
	for _, c := range s.Active {
		ms = append(ms, c.Metrics()...)
	}
	return ms
}

// Header returns the collector set with its availability, for the
// result file's header (nil when no collector was requested).
func (s *Set) Header() map[string]string {
	if s == nil || len(s.Avail) == 0 {
		return nil
	}
	h := map[string]string{}
	for k, v := range s.Avail {
		h[k] = v
	}
	return h
}

// Unavailable lists "NAME: not available: REASON" for the collectors that
// do not work here, sorted.
func (s *Set) Unavailable() []string {
	if s == nil {
		return nil
	}
	var out []string
	for k, v := range s.Avail {
		if strings.HasPrefix(v, "not available") {
			out = append(out, k+": "+v)
		}
	}
	sort.Strings(out)
	return out
}

// Close closes every active collector and returns the first error.
func (s *Set) Close() error {
	if s == nil || s.view {
		return nil
	}
	var first error
	for _, c := range s.Active {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.Active = nil
	return first
}

// injected tells whether the test-only variable CONTEND_TEST_EVIDENCE
// (a comma list) names what: no-perf, no-perf-wide (the profile not
// system-wide), no-hw, no-taskstats, no-delayacct,
// no-tracefs make the matching probe fail as the kernel would.
func injected(what string) bool {
	for _, x := range strings.Split(os.Getenv("CONTEND_TEST_EVIDENCE"), ",") {
		if strings.TrimSpace(x) == what {
			return true
		}
	}
	return false
}
