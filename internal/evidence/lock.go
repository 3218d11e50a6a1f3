package evidence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/tracejournal"
)

// lockKinds are the kinds of kernel locks told apart by the flags of
// lock:contention_begin, each with its description in the plural and
// the singular.
var lockKinds = []struct{ name, desc, one string }{
	{"spinlock", "spinlocks", "spinlock"},
	{"rwlock", "rwlocks (spinning, read or write)", "rwlock (spinning, read or write)"},
	{"mutex", "mutexes (including optimistic spinning)", "mutex (including optimistic spinning)"},
	{"rwsem_read", "rw-semaphores taken for reading", "rw-semaphore taken for reading"},
	{"rwsem_write", "rw-semaphores taken for writing", "rw-semaphore taken for writing"},
	{"percpu_rwsem", "per-CPU rw-semaphores", "per-CPU rw-semaphore"},
	{"rtmutex", "rt-mutexes", "rt-mutex"},
}

// lockKind maps the flags text of contention_begin ("SPIN|READ") to a
// kind.
func lockKind(flags string) string {
	has := map[string]bool{}
	for _, f := range strings.Split(flags, "|") {
		has[strings.TrimSpace(f)] = true
	}
	switch {
	case has["PERCPU"]:
		return "percpu_rwsem"
	case has["RT"]:
		return "rtmutex"
	case has["MUTEX"]:
		return "mutex"
	case has["SPIN"] && (has["READ"] || has["WRITE"]):
		return "rwlock"
	case has["SPIN"]:
		return "spinlock"
	case has["READ"]:
		return "rwsem_read"
	case has["WRITE"]:
		return "rwsem_write"
	}
	return "spinlock" // flags=0 is a plain spinning lock (qspinlock slow path)
}

// lock records kernel lock contention of the child and its descendants
// (tracefs lock:contention_begin/end, and mmap_lock acquisitions where the
// kernel has those events) in the top-level trace buffer, filtered by
// set_event_pid with options/event-fork, and aggregates the raw text
// after each repetition. Every setting it touches is saved at open and
// restored by Close.
type lock struct {
	root   string
	events []string // enable files switched per repetition
	mmap   bool
	// claim holds tracefs (one run at a time) and the saved settings,
	// journaled on disk until Close restored them: `contend cleanup` or
	// the next run restores them after a SIGKILL of contend.
	claim *tracejournal.Claim
	// name is the collector's name: "locktrace", or "lock" where BPF
	// could not be used (fallback says why).
	name, fallback string
}

const (
	beginEvent = "events/lock/contention_begin/enable"
	endEvent   = "events/lock/contention_end/enable"
	mmapStart  = "events/mmap_lock/mmap_lock_start_locking/enable"
	mmapDone   = "events/mmap_lock/mmap_lock_acquire_returned/enable"
)

// openLock opens the lock collector: with BPF (lockBPF) where the
// kernel allows it, else the tracefs collector, whose header note says
// why BPF could not be used.
func openLock(sizes bpfSizes) (Collector, error) {
	b, berr := openLockBPF(sizes)
	if berr == nil {
		return b, nil
	}
	t, err := openLockTrace("lock")
	if err != nil {
		return nil, fmt.Errorf("BPF: %v; tracefs: %v", berr, err)
	}
	t.fallback = berr.Error()
	return t, nil
}

// openLockTrace opens the tracefs lock collector under name.
func openLockTrace(name string) (*lock, error) {
	root, err := tracejournal.FindRoot()
	if err == nil && injected("no-tracefs") {
		err = tracejournal.NotMounted()
	}
	if err != nil {
		return nil, err
	}
	l := &lock{root: root, name: name}
	for _, f := range []string{beginEvent, endEvent} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			return nil, fmt.Errorf("no lock:contention_begin/end events in %s (kernel older than 5.19?)", root)
		}
	}
	l.events = []string{beginEvent, endEvent}
	if _, err := os.Stat(filepath.Join(root, mmapStart)); err == nil {
		if _, err := os.Stat(filepath.Join(root, mmapDone)); err == nil {
			l.events = append(l.events, mmapStart, mmapDone)
			l.mmap = true
		}
	}
	// A contend killed with SIGKILL left its settings: Take puts them
	// back before looking whether tracefs is in use.
	l.claim, err = tracejournal.Take(root)
	switch {
	case errors.Is(err, tracejournal.ErrBusy):
		return nil, err // names the root and the holder
	case errors.Is(err, tracejournal.ErrStuck):
		return nil, fmt.Errorf("tracefs is in use: %v", err)
	case err != nil:
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(root, "set_event")); err == nil && strings.TrimSpace(string(b)) != "" {
		l.claim.Release()
		return nil, fmt.Errorf("tracefs is in use: events already enabled in %s/set_event (%s); disable them first", root, firstLine(string(b)))
	}
	if err := l.claim.Save(l.restoreOrder()); err != nil {
		return nil, err
	}
	if err := l.write("options/event-fork", "1"); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// restoreOrder lists the files Close restores: events off first, then
// the rest.
func (l *lock) restoreOrder() []string {
	return append(append([]string{}, l.events...), "tracing_on", "options/event-fork", "set_event_pid")
}

// note says what openLock restored, for the file's header.
func (l *lock) note() string {
	var n []string
	if l.fallback != "" {
		n = append(n, "tracefs, not BPF: "+l.fallback)
	}
	if l.claim.Recovered != "" {
		n = append(n, l.claim.Recovered)
	}
	return strings.Join(n, "; ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func (l *lock) write(f, v string) error {
	p := filepath.Join(l.root, f)
	if err := os.WriteFile(p, []byte(v+"\n"), 0); err != nil {
		return fmt.Errorf("cannot write %s: %v", p, err)
	}
	return nil
}

func (l *lock) Name() string { return l.name }

// NeedsStop: set_event_pid must name the child before it creates any
// thread or process.
func (l *lock) NeedsStop() bool { return true }

func (l *lock) Metrics() []results.Metric {
	var ms []results.Metric
	add := func(kind, desc, one string) {
		ms = append(ms,
			results.Metric{Name: "k.lock." + kind + ".count", Unit: "count", Better: "lower", Desc: "contended acquisitions of kernel " + desc + " by the child's tasks (lock:contention_begin)"},
			results.Metric{Name: "k.lock." + kind + ".wait", Unit: "ns", Better: "lower", Desc: "total wait on contended kernel " + desc + " (contention_begin to _end, microsecond timestamps)"},
			results.Metric{Name: "k.lock." + kind + ".max_wait", Unit: "ns", Better: "lower", Desc: "longest wait on a contended kernel " + one})
	}
	for _, k := range lockKinds {
		add(k.name, k.desc, k.one)
	}
	ms = append(ms, results.Metric{Name: LockLost, Unit: "count", Better: "lower", Desc: "lock contention events of the child's tasks not recorded (a full BPF map, or trace events lost from a full trace buffer): while it is above 0, every k.lock figure of the repetition is a lower bound"})
	if l.mmap {
		for _, rw := range []struct{ name, ing string }{{"read", "reading"}, {"write", "writing"}} {
			ms = append(ms,
				results.Metric{Name: "k.lock.mmap_" + rw.name + ".count", Unit: "count", Desc: "mmap_lock acquisitions for " + rw.ing + " by the child's tasks, contended or not (mmap_lock events)"},
				results.Metric{Name: "k.lock.mmap_" + rw.name + ".wait", Unit: "ns", Better: "lower", Desc: "total time to acquire mmap_lock for " + rw.ing + " (start_locking to acquire_returned)"},
				results.Metric{Name: "k.lock.mmap_" + rw.name + ".max_wait", Unit: "ns", Better: "lower", Desc: "longest time to acquire mmap_lock for " + rw.ing})
		}
	}
	return ms
}

// Start restricts the events to the child (stopped before its first
// instruction) and what it forks, empties the buffer and enables the
// events.
func (l *lock) Start(pid int) error {
	if err := l.write("set_event_pid", strconv.Itoa(pid)); err != nil {
		return err
	}
	if err := l.write("trace", ""); err != nil {
		return err
	}
	if err := l.write("tracing_on", "1"); err != nil {
		return err
	}
	for _, f := range l.events {
		if err := l.write(f, "1"); err != nil {
			l.disable()
			return err
		}
	}
	return nil
}

func (l *lock) disable() {
	for _, f := range l.events {
		l.write(f, "0")
	}
}

// Stop disables the events, reads the buffer and aggregates it.
func (l *lock) Stop() (map[string]float64, []string, error) {
	l.disable()
	b, err := os.ReadFile(filepath.Join(l.root, "trace"))
	l.write("trace", "")
	l.write("set_event_pid", "")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the trace buffer: %v", err)
	}
	m, lost := aggregateTrace(string(b), l.mmap)
	var notes []string
	if lost > 0 {
		notes = append(notes, fmt.Sprintf("lock evidence: %s lost (buffer full; raise %s/buffer_size_kb): counts are lower bounds", plural.N(lost, "trace event", "trace events"), l.root))
	}
	return m, notes, nil
}

// Close restores every tracefs setting as openLock found it and lets
// another run use tracefs. It tries every file and returns the first
// error.
func (l *lock) Close() error {
	return l.claim.Release()
}

// traceRegexps are compiled on first use, not at package init: this
// package is linked into every repetition child, and five compiled
// expressions cost about 1 ms of its start-up (GODEBUG=inittrace=1).
var traceRegexps = sync.OnceValue(func() *traceRE {
	return &traceRE{
		// line matches one event line of the trace file: task-PID, an
		// optional (TGID), [CPU], optional irq flags, TIMESTAMP: EVENT:
		// FIELDS.
		line:    regexp.MustCompile(`^\s*.*-(\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[\d+\]\s+(?:\S+\s+)?(\d+)\.(\d+): (\w+): (.*)$`),
		entries: regexp.MustCompile(`entries-in-buffer/entries-written: (\d+)/(\d+)`),
		addr:    regexp.MustCompile(`^(\S+)`),
		flags:   regexp.MustCompile(`flags=([A-Z|0-9x]+)`),
		write:   regexp.MustCompile(`write=(\w+)`),
	}
})

type traceRE struct{ line, entries, addr, flags, write *regexp.Regexp }

type waitAgg struct{ count, total, max float64 }

// aggregateTrace turns the text of a trace buffer into the lock metrics
// (every kind present, zero when nothing happened; LockLost the events
// lost) and the number of events lost.
func aggregateTrace(text string, mmap bool) (map[string]float64, int) {
	re := traceRegexps()
	type begin struct {
		addr string
		kind string
		ts   int64
	}
	agg := map[string]*waitAgg{}
	for _, k := range lockKinds {
		agg[k.name] = &waitAgg{}
	}
	if mmap {
		agg["mmap_read"], agg["mmap_write"] = &waitAgg{}, &waitAgg{}
	}
	open := map[string][]begin{}   // pid -> pending contention_begin
	mmapOpen := map[string]int64{} // pid+mode -> start_locking time
	lost := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") {
			if m := re.entries.FindStringSubmatch(line); m != nil {
				in, _ := strconv.Atoi(m[1])
				written, _ := strconv.Atoi(m[2])
				lost = written - in
			}
			continue
		}
		m := re.line.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		pid, event, fields := m[1], m[4], m[5]
		sec, _ := strconv.ParseInt(m[2], 10, 64)
		frac := (m[3] + "000000000")[:9]
		ns, _ := strconv.ParseInt(frac, 10, 64)
		ts := sec*1e9 + ns
		switch event {
		case "contention_begin":
			kind := "spinlock"
			if f := re.flags.FindStringSubmatch(fields); f != nil {
				kind = lockKind(f[1])
			}
			open[pid] = append(open[pid], begin{re.addr.FindString(fields), kind, ts})
		case "contention_end":
			st := open[pid]
			addr := re.addr.FindString(fields)
			for i := len(st) - 1; i >= 0; i-- {
				if st[i].addr == addr {
					agg[st[i].kind].add(float64(ts - st[i].ts))
					open[pid] = append(st[:i], st[i+1:]...)
					break
				}
			}
		case "mmap_lock_start_locking", "mmap_lock_acquire_returned":
			if !mmap {
				continue
			}
			mode := "mmap_read"
			if w := re.write.FindStringSubmatch(fields); w != nil && w[1] == "true" {
				mode = "mmap_write"
			}
			if event == "mmap_lock_start_locking" {
				mmapOpen[pid+mode] = ts
			} else if t0, ok := mmapOpen[pid+mode]; ok {
				agg[mode].add(float64(ts - t0))
				delete(mmapOpen, pid+mode)
			}
		}
	}
	out := map[string]float64{}
	for k, a := range agg {
		out["k.lock."+k+".count"] = a.count
		out["k.lock."+k+".wait"] = a.total
		out["k.lock."+k+".max_wait"] = a.max
	}
	out[LockLost] = float64(lost)
	return out, lost
}

func (a *waitAgg) add(d float64) {
	if d < 0 {
		d = 0
	}
	a.count++
	a.total += d
	if d > a.max {
		a.max = d
	}
}
