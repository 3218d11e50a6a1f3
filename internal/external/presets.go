package external

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"contend/internal/workload"
)

// A Preset reads the output of one of the original programs. Its metric
// names match the built-in workload's, so that `compare` lines them up.
type Preset struct {
	Name string
	Desc string
	// Metrics in record order: for import, each match of the first one
	// starts a new record (repetition).
	Metrics []Spec
	// Primary is the metric that headlines reports: one of Metrics, or a
	// process metric measured by exec (mutex: real, as the original was
	// timed with time(1)).
	Primary string
	// ImportOnly presets read lines that a shell, not the program,
	// prints: exec measures them itself.
	ImportOnly string
}

func spec(name, re, unit string, better workload.Better, desc string) Spec {
	return Spec{Name: name, Regex: regexp.MustCompile(re), Unit: unit, Better: better, Desc: desc}
}

// presets are built on first use: compiling their regular expressions at
// package init would slow the start of every repetition child, which links
// this package too.
var presets = sync.OnceValue(buildPresets)

func buildPresets() map[string]*Preset {
	return map[string]*Preset{
		"faultme": {
			Name: "faultme",
			Desc: "Rostedt's faultme: \"time = N usecs\"",
			Metrics: []Spec{
				spec("time", `(?m)^time = (\d+) usecs\s*$`, "us", workload.Lower, "faultme's timed region, start barrier to stop barrier (its \"time = N usecs\")"),
			},
			Primary: "time",
		},
		"semop-multi": {
			Name: "semop-multi",
			Desc: "semop-multi: \"total operations: N, ops/sec M\"",
			Metrics: []Spec{
				spec("ops_per_sec", `(?m)^total operations: \d+, ops/sec (\d+)\s*$`, "ops/s", workload.Higher, "semop-multi's ops/sec (total / nominal duration, truncated)"),
				spec("ops", `(?m)^total operations: (\d+), ops/sec \d+\s*$`, "count", workload.Higher, "semop-multi's total operations (2 per +1/-1 pair)"),
			},
			Primary: "ops_per_sec",
		},
		"osim": {
			Name: "osim",
			Desc: "osim (ipcscale sem-lockunlock): \"total execution time\" and \"per loop execution time\"",
			Metrics: []Spec{
				spec("time", `(?m)^total execution time: (\d+\.\d+) seconds for \d+ loops\s*$`, "s", workload.Lower, "osim's timed region, SETALL to wait-for-zero return"),
				spec("per_loop_orig", `(?m)^per loop execution time: (\d+\.\d+) usec\s*$`, "us", workload.Lower, "osim's time / total loops as printed (truncated to ns)"),
				spec("loops", `(?m)^total execution time: \d+\.\d+ seconds for (\d+) loops\s*$`, "count", workload.Either, "lock/unlock cycles of all tasks"),
			},
			Primary: "time",
		},
		"mutex": {
			Name: "mutex",
			Desc: "test-mutex (Mitake's mainc.c): \"contended:N\"; timed by contend as time(1) did",
			Metrics: []Spec{
				spec("contended", `(?m)^contended:(\d+)\s*$`, "count", workload.Either, "trylock failures (EBUSY) of all threads"),
			},
			Primary: "real",
		},
		"sysbench": {
			Name: "sysbench",
			Desc: "sysbench (0.4 and 1.x) report: total time, events and the thread-fairness lines",
			Metrics: []Spec{
				spec("total_time", `(?m)^\s*total time:\s+(\d+(?:\.\d+)?)s\s*$`, "s", workload.Lower, "sysbench's total time"),
				spec("events", `(?m)^\s*total number of events:\s+(\d+)\s*$`, "count", workload.Either, "sysbench's total number of events"),
				spec("events_avg", `(?m)^\s*events \(avg/stddev\):\s+(\d+(?:\.\d+)?)/\d+(?:\.\d+)?\s*$`, "count", workload.Either, "fairness: events per thread, mean"),
				spec("events_stddev", `(?m)^\s*events \(avg/stddev\):\s+\d+(?:\.\d+)?/(\d+(?:\.\d+)?)\s*$`, "count", workload.Lower, "fairness: events per thread, standard deviation"),
				spec("thread_time_avg", `(?m)^\s*execution time \(avg/stddev\):\s+(\d+(?:\.\d+)?)/\d+(?:\.\d+)?\s*$`, "s", workload.Lower, "fairness: execution time per thread, mean"),
				spec("thread_time_stddev", `(?m)^\s*execution time \(avg/stddev\):\s+\d+(?:\.\d+)?/(\d+(?:\.\d+)?)\s*$`, "s", workload.Lower, "fairness: execution time per thread, standard deviation"),
			},
			Primary: "total_time",
		},
		"time": {
			Name: "time",
			Desc: "bash's time keyword: real, user, sys lines (0m24.132s, or time -p's 24.13)",
			Metrics: []Spec{
				spec("real", `(?m)^real\s+(\d+m\d+(?:\.\d+)?s|\d+(?:\.\d+)?)`, "s", workload.Lower, "wall time printed by the shell's time"),
				spec("user", `(?m)^user\s+(\d+m\d+(?:\.\d+)?s|\d+(?:\.\d+)?)`, "s", workload.Lower, "user CPU time printed by the shell's time"),
				spec("sys", `(?m)^sys\s+(\d+m\d+(?:\.\d+)?s|\d+(?:\.\d+)?)`, "s", workload.Lower, "system CPU time printed by the shell's time"),
			},
			Primary:    "real",
			ImportOnly: "the time preset reads the real/user/sys lines a shell prints around a program; exec measures real, user and sys itself (wait4): use it with import",
		},
	}
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (*Preset, error) {
	p, ok := presets()[name]
	if !ok {
		return nil, fmt.Errorf("no preset %q; presets: %s", name, strings.Join(PresetNames(), ", "))
	}
	return p, nil
}

// PresetNames returns the preset names, sorted.
func PresetNames() []string {
	var ns []string
	for n := range presets() {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}
