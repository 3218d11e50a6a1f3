package workload

import (
	"fmt"
	"math"
	"time"

	"contend/bind"
	"contend/internal/limits"
)

// MaxStack is the largest thread stack a configuration may ask for: more is
// a typing mistake, not a test.
const MaxStack = int64(1) << 30

// Mutex is the 1000-thread pthread mutex test of Xiao Guangrong in both of
// its forms: Mitake's trylock variant (the published source) and Xiao's
// plain lock. Its hot loop is native/mutex.c, its binding bind/mutex.go.
var Mutex = &Workload{
	Name:    "mutex",
	Summary: "1000 threads x 300000 lock/unlock of one pthread mutex (test-mutex)",
	Provenance: "Xiao Guangrong, LKML 2010-03-11, \"lock's trace events can improve mutex's performance in userspace?\" " +
		"(test-mutex.tar.bz, not recovered); Hitoshi Mitake's reply 2010-03-13, attachment mainc.c (trylock variant)",
	Doc: `--threads threads each lock and unlock one default-attribute pthread mutex
--locks times and bump a plain int counter inside the critical section. The
threads have --stack byte stacks (32 KiB in the original). Main holds a gate
mutex while it creates all the threads; each thread locks and unlocks the gate
before its loop, so after main unlocks it the threads start one by one.

Two variants:
  trylock  (default) Hitoshi Mitake's mainc.c, the published source: trylock,
           and on EBUSY a blocking lock plus an atomic increment of a
           "contended" counter while holding the lock. It prints
           contended:N at the end.
  lock     Xiao Guangrong's original, inferred from Mitake's description of
           his change (the tarball was not recovered): a plain lock, no
           contended counter, no output.

The original was timed from outside with bash 'time': the primary metrics are
the repetition child's real, user and sys time, which cover thread creation,
the gate cascade, the loops, the joins and exit, as 'time' did. The threads
phase timed inside C (gate unlock to last join), the contended count, the
context switches (vcsw, ivcsw) and the final counter (which must equal
threads x locks, or the repetition fails) are recorded besides.

A refused --stack (pthread_attr_setstacksize fails; the original did not
check) is reported in the result and as a warning; the threads then run on
the default stack, as the original's did.

--format original prints, per repetition, "contended:N" (trylock variant)
and bash's time lines, so a log looks like the mails'.

Default --threads 1000 is the original's, kept for faithfulness: below 1000
CPUs the threads outnumber the CPUs, so waiters sleep and are woken, which is
what the variants differ in, at 2 CPUs as at 512. It does not follow the
CPUs: above 1000 CPUs give --threads a multiple of them (mmtests runs such
tests up to 64 times the CPUs). The threads' tasks, --stack stacks and
mappings are checked against the machine's limits before the run.`,
	Metrics: []Metric{
		{Name: "threads_time", Unit: "ns", Better: Lower, Desc: "threads phase inside C: gate unlock to last join"},
		{Name: "lock_time", Unit: "ns", Better: Lower, Desc: "threads_time / (threads x locks): wall time per lock/unlock pair"},
		{Name: "contended", Unit: "count", Better: Either, Desc: "trylock found the mutex held (trylock variant)"},
		{Name: "contended_frac", Unit: "ratio", Better: Either, Desc: "contended / (threads x locks)"},
		{Name: "counter", Unit: "count", Better: Either, Desc: "final value of the shared counter (= threads x locks)"},
		{Name: "stack", Unit: "bytes", Better: Either, Desc: "stack size the threads got (pthread_getattr_np)"},
		{Name: "stack_honoured", Unit: "count", Better: Either, Desc: "1 when the requested --stack was used, 0 when refused"},
	},
	Primary: "real",
	Output: &Output{
		Preset: "mutex",
		Desc:   "test-mutex (Mitake's mainc.c): \"contended:N\"; timed by contend as time(1) did",
		Metrics: []OutputMetric{
			{"contended", `(?m)^contended:(\d+)\s*$`, "count", Either, "trylock failures (EBUSY) of all threads"},
		},
		Primary: "real",
	},
	Quick: []string{"--threads", "50", "--locks", "20000"},
	Throughput: PerSecond("locks/s", "lock/unlock pairs of all threads per second of the threads phase", "threads_time",
		func(p *bind.MutexParams, _ map[string]float64) float64 { return float64(p.Threads) * float64(p.Locks) }),
	Funcs: Typed[bind.MutexParams]{
		Check:    checkMutex,
		Run:      runMutex,
		Lean:     leanMutex,
		Original: originalMutex,
		Timeout: func(p *bind.MutexParams) time.Duration {
			// Generous: this 2-core VM needs about 30 ns per pair.
			pairs := float64(p.Threads) * float64(p.Locks)
			return 2*time.Minute + time.Duration(pairs*float64(time.Microsecond)) + time.Duration(p.Threads)*time.Millisecond
		},
	},
}

func init() { Register(Mutex) }

// checkThreads checks n threads of one process with stacks of stack bytes
// against the machine's task limits and what their stacks and mappings
// need (limits.Machine.CheckTasks, CheckThreads); flag asked for them.
func checkThreads(flag string, n, stack int64, m limits.Machine) ([]string, error) {
	if err := m.CheckTasks(flag, n); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	warns, err := m.CheckThreads(flag, n, stack)
	if err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	return warns, nil
}

// checkStack validates a thread stack size of flag for n threads.
func checkStack(flag string, stack, n int64, m limits.Machine) error {
	min := max(m.StackMin, bind.ThreadStackMin())
	if stack < min {
		return Usagef("--%s: %s is below PTHREAD_STACK_MIN (%s) here; accepted: %s to %s", flag, FormatSize(stack), FormatSize(min), FormatSize(min), FormatSize(MaxStack))
	}
	if m.AddressSpace > 0 && n*stack > m.AddressSpace {
		return Usagef("--%s: %d stacks of %s exceed the address-space limit RLIMIT_AS (ulimit -v) of %s", flag, n, FormatSize(stack), FormatSize(m.AddressSpace))
	}
	return nil
}

func checkMutex(p *bind.MutexParams, m limits.Machine) ([]string, error) {
	threads, locks := int64(p.Threads), int64(p.Locks)
	if err := m.CheckTasks("threads", threads); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	if threads*locks > math.MaxInt32 {
		return nil, Usagef("--locks: %d threads x %d locks = %d exceeds the original's int counter; accepted: threads x locks at most %d", threads, locks, threads*locks, math.MaxInt32)
	}
	if err := checkStack("stack", int64(p.Stack), threads, m); err != nil {
		return nil, err
	}
	return checkThreads("threads", threads, int64(p.Stack), m)
}

func runMutex(p *bind.MutexParams, rt Runtime) (Sample, error) {
	p.ReportFD = int32(rt.ReportFD)
	r, err := bind.Mutex(*p)
	if err != nil {
		return Sample{}, err
	}
	return mutexSample(p, r)
}

// leanMutex runs the mutex test in a lean child: the original is timed as
// a whole process (`time ./mainc`), so contend's child must start and end
// as a C program does, not with the Go runtime's start-up in its real,
// user and sys.
func leanMutex(p *bind.MutexParams) ([]byte, func(int, []byte) (Sample, error)) {
	p.ReportFD = -1 // the mutex test reports nothing while it runs
	params, result := bind.MutexLean(*p)
	return params, func(rc int, b []byte) (Sample, error) {
		r, err := result(rc, b)
		if err != nil {
			return Sample{}, err
		}
		return mutexSample(p, r)
	}
}

// mutexSample checks what one repetition did and makes its Sample.
func mutexSample(p *bind.MutexParams, r bind.MutexResult) (Sample, error) {
	threads, locks, variant := int64(p.Threads), int64(p.Locks), p.Variant
	pairs := uint64(threads * locks)
	if r.Counter != pairs {
		return Sample{}, fmt.Errorf("mutex: the counter ended at %d, not threads x locks = %d: the run did not do its work", r.Counter, pairs)
	}
	s := Sample{Metrics: map[string]float64{
		"threads_time":   float64(r.ThreadsNs),
		"lock_time":      float64(r.ThreadsNs) / float64(pairs),
		"counter":        float64(r.Counter),
		"stack":          float64(r.StackActual),
		"stack_honoured": 0,
	}}
	if variant == bind.MutexTrylock {
		if r.Contended > pairs {
			return Sample{}, fmt.Errorf("mutex: contended %d exceeds threads x locks = %d", r.Contended, pairs)
		}
		s.Metrics["contended"] = float64(r.Contended)
		s.Metrics["contended_frac"] = float64(r.Contended) / float64(pairs)
	}
	if r.StackHonoured {
		s.Metrics["stack_honoured"] = 1
	} else {
		s.Notes = append(s.Notes, stackNote(int64(p.Stack), r.StackErr, r.StackActual))
	}
	return s, nil
}

// stackNote says that a requested stack size was not used.
func stackNote(want int64, err error, got uint64) string {
	why := "the threads got a smaller stack"
	if err != nil {
		why = fmt.Sprintf("pthread_attr_setstacksize refused it (%v)", err)
	}
	return fmt.Sprintf("warning: the %s stack was not honoured: %s; the threads ran on %s stacks", FormatSize(want), why, FormatSize(int64(got)))
}

func originalMutex(p *bind.MutexParams, s Sample, proc map[string]float64) []string {
	var out []string
	if p.Variant == bind.MutexTrylock {
		out = append(out, fmt.Sprintf("contended:%d", int64(s.Metrics["contended"])))
	}
	return append(out, "",
		"real\t"+bashTime(proc["real"]),
		"user\t"+bashTime(proc["user"]),
		"sys\t"+bashTime(proc["sys"]))
}

// bashTime formats ns as bash's time keyword does by default (%3lR):
// minutes, then seconds with three decimals, truncated.
func bashTime(ns float64) string {
	ms := int64(ns) / int64(time.Millisecond)
	return fmt.Sprintf("%dm%d.%03ds", ms/60000, ms%60000/1000, ms%1000)
}
