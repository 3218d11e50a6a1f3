package workload

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"contend/bind"
	"contend/internal/limits"
	"contend/internal/wisbuild"
)

// Wis runs a will-it-scale test file as it is: compiled at run time with
// contend's shim (native/wis_shim.c, internal/wisbuild) and run by
// native/wis.c.
var Wis = &Workload{
	Name:       "wis",
	Summary:    "a will-it-scale test (tests/futex4.c ...), unmodified, on contend's runner",
	Provenance: "will-it-scale (Anton Blanchard, github.com/antonblanchard/will-it-scale), the kernel test robot's contention probe; its test API, on a runner and shim of contend's own",
	Doc: `Compiles --test, a will-it-scale test file (testcase(), optionally
testcase_prepare(), testcase_cleanup(), testcase_description, new_task()),
as it is, with contend's shim (gcc -O2 -g -Wall -pthread: an executable
leader that runs the tasks, and for threads a shared object read for the
test's description), in a private temporary
directory removed when contend ends; a compile error is reported in one
line. Each repetition runs --tasks tasks, threads or processes (--mode
thread|process: will-it-scale's _threads and _processes builds), pinned to
the allowed CPUs in turn (--pin, the default, as will-it-scale's runner),
held at a start gate until all exist, each with its own iteration counter in
a 256-byte slot. The tasks run in the leader, a small C process the
repetition's child starts with exec, never in contend's Go child, as
will-it-scale's runner starts them: threads of the leader (cancelled
asynchronously at the end: the tests are written for it), or processes it
forks while it has no second thread (glibc's single-threaded paths in the
tasks). It runs testcase_prepare before starting them (process tasks
inherit what it made) and testcase_cleanup after ending them. The counts are taken
after --warmup-time and after --duration. docs/will-it-scale.md.

Metrics: ops_per_sec, the primary, all tasks' iterations per second of the
interval (will-it-scale's "average:" line, which verify compares with the
original's); per_task_ops, ops_per_sec / tasks (with the same --tasks its
ratio between two sides is the primary's), recorded also under the robot's
name for the mode: per_thread_ops (--mode thread) or per_process_ops (--mode
process); fairness (fewest / most of one task); each task's count in the
series. The tests' own defaults: --tasks is the
online CPUs (the robot's nr_task: 100%).

Default --tasks is the online CPUs: the kernel test robot's nr_task 100%,
one task per CPU at 2 and at 512 CPUs (will-it-scale's runtest.py goes up
to the CPU count). Under taskset or a cpuset the tasks share the allowed
CPUs, pinned modulo their count.`,
	Metrics: []Metric{
		{Name: "ops_per_sec", Unit: "ops/s", Better: Higher, Desc: "iterations of all tasks per second of the interval (will-it-scale's average)"},
		{Name: "per_task_ops", Unit: "ops/s", Better: Higher, Desc: "iterations per task per second of the interval; recorded also as per_thread_ops or per_process_ops (by --mode), the robot's name"},
		{Name: "iterations", Unit: "count", Better: Either, Desc: "iterations of all tasks in the interval"},
		{Name: "time", Unit: "ns", Better: Either, Desc: "the measured interval"},
		{Name: "fairness", Unit: "ratio", Better: Higher, Desc: "fewest / most iterations of one task (1 = fair)"},
	},
	Primary: "ops_per_sec",
	Output: &Output{
		Preset: "wis",
		Desc:   "will-it-scale's runner (TEST_threads -t N -s S): \"average:N\", all tasks' iterations per second",
		Metrics: []OutputMetric{
			{"ops_per_sec", `(?m)^average:(\d+)\s*$`, "ops/s", Higher, "will-it-scale's average: all tasks' iterations per second"},
		},
		Primary: "ops_per_sec",
	},
	Funcs: Typed[bind.WisParams]{
		Check: checkWis,
		Run:   runWis,
		Timeout: func(p *bind.WisParams) time.Duration {
			return p.WarmupNs.Duration() + p.DurationNs.Duration() + time.Minute
		},
		ForValues: func(p *bind.WisParams) ([]Metric, string, error) {
			m := WisTaskMetric(p.Mode)
			// The primary stays ops_per_sec, which the original prints
			// (verify's verdict): with the same --tasks on both sides of a
			// comparison its ratio is per_thread_ops' ratio.
			return []Metric{{Name: m, Unit: "ops/s", Better: Higher, Desc: "iterations per task per second (the robot's will-it-scale." + m + ")"}}, "", nil
		},
		Original: func(p *bind.WisParams, s Sample, _ map[string]float64) []string {
			return []string{fmt.Sprintf("average:%d", int64(s.Metrics["ops_per_sec"]))}
		},
		Defaults: map[string]DynamicDefault{
			"tasks": {Text: "online CPUs", Func: func(Values) string { return strconv.Itoa(onlineCPUs()) }},
		},
	},
}

func init() { Register(Wis) }

// WisTaskMetric is the name of the per-task metric in mode: the robot's
// per_thread_ops or per_process_ops.
func WisTaskMetric(mode bind.WisMode) string {
	if mode == bind.WisProcess {
		return "per_process_ops"
	}
	return "per_thread_ops"
}

func checkWis(p *bind.WisParams, m limits.Machine) ([]string, error) {
	if _, err := wisbuild.Build(p.Test.String()); err != nil {
		var k *wisbuild.KilledError
		if errors.As(err, &k) {
			return nil, err // not the user's test: exit 1, or 130 when interrupted
		}
		return nil, &UsageError{Msg: err.Error()}
	}
	if p.Mode == bind.WisProcess {
		if err := m.CheckTasks("tasks", int64(p.Tasks)); err != nil {
			return nil, &UsageError{Msg: err.Error()}
		}
		return nil, nil
	}
	// The tasks are threads of the leader, with default stacks.
	return checkThreads("tasks", int64(p.Tasks), m.ThreadStack, m)
}

func runWis(p *bind.WisParams, rt Runtime) (Sample, error) {
	b, done, err := wisbuild.Object(p.Test.String())
	if err != nil {
		return Sample{}, err
	}
	defer done()
	p.SO, p.Exe = bind.CStringOf(b.SO), bind.CStringOf(b.Exe)
	p.ReportFD = int32(rt.ReportFD)
	r, err := bind.Wis(*p)
	if err != nil {
		return Sample{}, err
	}
	if r.ElapsedNs == 0 {
		return Sample{}, errors.New("wis: the runner measured no time")
	}
	secs := float64(r.ElapsedNs) / 1e9
	total := float64(r.Iterations) / secs
	s := Sample{Metrics: map[string]float64{
		"time":                float64(r.ElapsedNs),
		"iterations":          float64(r.Iterations),
		"ops_per_sec":         total,
		"per_task_ops":        total / float64(p.Tasks),
		WisTaskMetric(p.Mode): total / float64(p.Tasks),
	}, Series: map[string][]float64{}}
	lo, hi := ^uint64(0), uint64(0)
	for _, x := range r.PerTask {
		lo, hi = min(lo, x), max(hi, x)
		s.Series["iterations"] = append(s.Series["iterations"], float64(x))
	}
	if hi > 0 {
		s.Metrics["fairness"] = float64(lo) / float64(hi)
	}
	if r.Iterations == 0 {
		s.Notes = append(s.Notes, "no iteration counted in the interval: does testcase add to *iterations?")
	}
	if r.LateTeardown > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("a task thread did not end within %d s of its cancellation (testcase_cleanup not run; will-it-scale's own runner hangs there): the counts, taken before the stop, are kept", r.LateTeardown))
	}
	return s, nil
}
