// Package workload describes contend's workloads once: name, provenance,
// parameters with the original's defaults and units, metrics with units and
// better-direction, validation against the machine, the run itself (called
// in the repetition's child), and the original program's output format.
// Flags, `contend list`, validation, result files and reports are all
// driven from these descriptions.
package workload

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"sync"
	"time"

	"contend/bind"
	"contend/internal/limits"
	"contend/internal/results"
)

// Better says which direction of a metric is an improvement.
type Better string

// Directions of improvement.
const (
	Lower  Better = "lower"
	Higher Better = "higher"
	Either Better = "" // informational: no direction is better
)

// Metric describes one number a repetition reports.
type Metric struct {
	Name   string // short key, for example "time"
	Unit   string // base unit: "ns", "bytes", "count", "ops/s", "ratio"
	Better Better
	Desc   string // one line
}

// Result returns m as a result file records it.
func (m Metric) Result() results.Metric {
	return results.Metric{Name: m.Name, Unit: m.Unit, Better: string(m.Better), Desc: m.Desc}
}

// Sample is what one repetition's child measured. Metric values are in the
// base units of the workload's Metrics.
type Sample struct {
	Metrics map[string]float64   `json:"metrics"`
	Series  map[string][]float64 `json:"series,omitempty"` // per-thread or per-task counts
	Notes   []string             `json:"notes,omitempty"`  // warnings about this repetition
}

// Runtime is what the child gives a workload's Run besides its parameters.
type Runtime struct {
	// ReportFD is the pipe to the parent for IPC ids, -1 when there is
	// none.
	ReportFD int
	// SemKey is the key for the SysV set the child creates, chosen by the
	// parent (internal/ipcown); 0 is IPC_PRIVATE.
	SemKey int
}

// Workload is the description of one reproduction.
type Workload struct {
	Name       string
	Summary    string // one line for `contend list`
	Provenance string // who, when, where it was published
	Doc        string // paragraphs for `contend help WORKLOAD`

	// Funcs are the workload's functions of its parameter struct in
	// bind: a Typed[bind.NAMEParams] (see bound.go). They set Params and
	// the functions of Values below when the workload is first looked up.
	// Only a workload without parameters may go without (and set its
	// functions of Values itself).
	Funcs binder
	// Params are set from the tags of the parameter struct: one per
	// tagged field.
	Params []Param
	bound  reflect.Type
	once   sync.Once
	// Positional names the parameters that may also be given as
	// positional arguments, in order, as the original program took them.
	Positional []string
	Metrics    []Metric
	// Primary is the metric that headlines reports and decides A/B runs.
	Primary string
	// Output describes what the original program prints, for `exec
	// --preset`, `import` and the original side of `verify`
	// (internal/external makes a preset of it); nil when there is no
	// original to run.
	Output *Output
	// Preset is Output.Preset (set by Register), "" without an Output.
	Preset string
	// Quick is a short configuration, as command-line arguments after the
	// workload's name, whose repetition takes a fraction of a second but
	// still creates what the workload creates (threads, processes, SysV
	// sets): tests that must cover every workload (fault trials) iterate
	// the registry with it. Nil for a workload that needs an outside file
	// (plugin).
	Quick []string

	// Check validates a complete set of values against each other and
	// against the machine. It returns a *UsageError for bad input and nil
	// or warnings otherwise.
	Check func(v Values, m limits.Machine) (warnings []string, err error)
	// SemSet returns the number of semaphores of the SysV set a
	// repetition with v creates; nil for a workload that creates none.
	// The parent journals the set before the child starts (internal/ipcown).
	SemSet func(v Values) int
	// Run runs one repetition in the child process: one cgo call.
	Run func(v Values, rt Runtime) (Sample, error)
	// Lean, when set, runs the repetition in a lean child instead
	// (`contend __lean`, native/lean.c): the workload's C called from a
	// constructor before the Go runtime starts, for a workload timed as a
	// whole process (mutex: real, user and sys as `time ./mainc` gave
	// them), so that its child starts as a C program does. It returns the
	// bytes of the C parameter struct and the function that turns the
	// child's result bytes (and the C run's return) into the Sample, in
	// the parent.
	Lean func(v Values) (params []byte, sample func(rc int, result []byte) (Sample, error), err error)
	// Original returns the lines the original program printed for one
	// repetition. proc holds the parent's process metrics of that
	// repetition (real, user, sys in ns).
	Original func(v Values, s Sample, proc map[string]float64) []string
	// Timeout returns the default per-repetition timeout for v.
	Timeout func(v Values) time.Duration

	// Throughput, optional, says what "work per second" is for sweeps,
	// fits and plots. Without it, a sweep uses the primary metric as is
	// when higher is better, and otherwise 1e9/primary for a primary in
	// ns (repetitions per second, "runs/s").
	Throughput *Throughput
	// OversubscribeWarn makes a sweep warn when a point asks for more
	// threads or tasks (a parameter whose Unit is "threads", "tasks" or
	// "processes") than there are online CPUs: set it where the extra
	// threads would only be time-sliced, so that the point measures the
	// scheduler rather than more concurrency (faultme: more readers than
	// CPUs do not fault concurrently). Leave it false where
	// oversubscription is the point of the test.
	OversubscribeWarn bool
	// ForValues, when set, returns the metrics that depend on the
	// parameters (a plugin's named counters) and the primary metric for
	// them (empty: Primary). It runs in the parent, after Check, before
	// the result file is created.
	ForValues func(v Values) (extra []Metric, primary string, err error)
}

// Output is the output format of a workload's original program: how to
// read the metrics it printed. Its metric names are the workload's (or
// process metrics), so that compare and verify pair them.
type Output struct {
	Preset string // the preset's name, for --preset
	Desc   string // one line
	// Metrics in record order: for import, each match of the first one
	// starts a new record (repetition).
	Metrics []OutputMetric
	// Primary is the metric that headlines reports: one of Metrics or a
	// process metric (mutex: real, as the original was timed by time(1)).
	Primary string
}

// OutputMetric is one number in the original's output: the first capture
// group of Regex (compiled when a preset is first used, not at init), in
// Unit as printed (us, s, count, ...).
type OutputMetric struct {
	Name, Regex, Unit string
	Better            Better
	Desc              string
}

// Throughput describes a workload's work per second, computed from one
// repetition's parameter values and metrics (base units).
type Throughput struct {
	Unit string // "pages/s"
	Desc string // one line: "pages read per second of the timed region"
	// Of returns the throughput of one repetition, false when its metrics
	// do not allow it (a zero time).
	Of func(v Values, m map[string]float64) (float64, bool)
}

// PerSecond returns a Throughput of work per second of the time metric
// timeNs (in ns), where work counts what one repetition with parameters p
// did.
func PerSecond[P any](unit, desc, timeNs string, work func(p *P, m map[string]float64) float64) *Throughput {
	return &Throughput{Unit: unit, Desc: desc, Of: func(v Values, m map[string]float64) (float64, bool) {
		t := m[timeNs]
		if t <= 0 {
			return 0, false
		}
		p, err := Decode[P](v)
		if err != nil {
			return 0, false
		}
		return work(p, m) / t * 1e9, true
	}}
}

// ConcurrencyUnits are the Param units that make a parameter a thread or
// task count: the N of a scalability fit (the list is results', which
// sweep files are read with).
var ConcurrencyUnits = results.ConcurrencyUnits

// IsConcurrency tells whether p counts threads, tasks or processes.
func (p Param) IsConcurrency() bool {
	if p.Kind != Int {
		return false
	}
	for _, u := range ConcurrencyUnits {
		if p.Unit == u {
			return true
		}
	}
	return false
}

// Metric returns the metric named name, from the workload's own metrics or
// the process metrics every repetition has.
func (w *Workload) Metric(name string) (Metric, bool) {
	for _, m := range w.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	for _, m := range ProcessMetrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Param returns the parameter named name.
func (w *Workload) Param(name string) (Param, bool) {
	w.complete()
	for _, p := range w.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// ProcessMetrics are measured by the parent for every repetition, from the
// child's whole-process wall time and wait4 rusage, the way time(1) does
// (results.ProcessMetrics, as a workload describes its metrics).
var ProcessMetrics = func() []Metric {
	var ms []Metric
	for _, m := range results.ProcessMetrics {
		ms = append(ms, Metric{Name: m.Name, Unit: m.Unit, Better: Better(m.Better), Desc: m.Desc})
	}
	return ms
}()

var registry = map[string]*Workload{}

// Register adds w to the registry; it panics on a duplicate name or a
// description that contradicts itself (a programming error).
func Register(w *Workload) {
	if _, dup := registry[w.Name]; dup {
		panic("workload: duplicate " + w.Name)
	}
	if o := w.Output; o != nil {
		for _, x := range registry {
			if x.Preset == o.Preset || o.Preset == "time" {
				panic(fmt.Sprintf("workload %s: preset %q taken", w.Name, o.Preset))
			}
		}
		if _, ok := w.Metric(o.Primary); !ok {
			panic(fmt.Sprintf("workload %s: the output's primary metric %q not described", w.Name, o.Primary))
		}
		w.Preset = o.Preset
	}
	if w.Funcs == nil && len(w.Params) > 0 {
		panic(fmt.Sprintf("workload %s: Params without Funcs: its parameters are a struct in bind, its functions a Typed of it", w.Name))
	}
	if _, ok := w.Metric(w.Primary); !ok {
		panic(fmt.Sprintf("workload %s: primary metric %q not described", w.Name, w.Primary))
	}
	registry[w.Name] = w
}

// complete sets w's Params and functions from w.Funcs, once. A workload
// without parameters (a test's) may have no Funcs and functions of Values.
func (w *Workload) complete() {
	if w.Funcs != nil {
		w.once.Do(w.define)
	}
}

func (w *Workload) define() {
	w.bound = w.Funcs.paramType()
	w.Funcs.define(w)
}

// Lookup returns the workload named name.
func Lookup(name string) (*Workload, bool) {
	w, ok := registry[name]
	if ok {
		w.complete()
	}
	return w, ok
}

// All returns every workload, sorted by name.
func All() []*Workload {
	ws := make([]*Workload, 0, len(registry))
	for _, w := range registry {
		w.complete()
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].Name < ws[j].Name })
	return ws
}

// Names returns the sorted workload names.
func Names() []string {
	var ns []string
	for _, w := range All() {
		ns = append(ns, w.Name)
	}
	return ns
}

// testInject returns the failure a test asks a workload's child to take,
// from CONTEND_TEST_INJECT: "die-after-semget" (a SysV workload: the way
// to test that the parent removes a set whose id it was never told) or
// "madvise-einval" (faultme: madvise fails as on a kernel without THP).
func testInject() bind.Inject {
	switch os.Getenv("CONTEND_TEST_INJECT") {
	case "die-after-semget":
		return bind.InjectDieAfterSemget
	case "madvise-einval":
		return bind.InjectMadviseEINVAL
	}
	return 0
}
