package evidence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"contend/internal/results"
)

// counter is one perf event counted for the child and its descendants.
type counter struct {
	typ    uint32
	config uint64
	metric results.Metric
}

// softwareCounters are opt-in (collector "perf"): any counter inherited
// by the child's tasks puts the perf context switch (events scheduled
// out and in, times updated) on every context switch of those tasks,
// however few events it counts (one costs as much as three): about
// 0.5 µs per switch on the development VM, +7% CPU time and +13% time
// per operation for a pipe ping-pong (perf bench sched pipe on one CPU).
// The default sched collector gets the CPU time of the same processes
// from rusage (k.tree_cpu, exact) and their threads' context switches up
// to each one's taskstats exit record (k.csw: the switches while a
// thread exits are in no record) at no cost per switch; only the
// migrations need perf.
var softwareCounters = []counter{
	{unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_TASK_CLOCK, results.Metric{Name: "k.task_clock", Unit: "ns", Better: "lower", Desc: "CPU time of the child and everything it spawned (perf task-clock)"}},
	{unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CONTEXT_SWITCHES, results.Metric{Name: "k.context_switches", Unit: "count", Better: "lower", Desc: "context switches of the child's tasks (perf)"}},
	{unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CPU_MIGRATIONS, results.Metric{Name: "k.cpu_migrations", Unit: "count", Better: "lower", Desc: "moves of the child's tasks between CPUs (perf)"}},
}

// faultCounters are opt-in (collector "faults"): a counting page-fault
// event makes the kernel account every fault to it, which slowed faultme
// (16,384 faults in 105 ms) by about 1%; rusage's minflt and majflt
// count the same faults for every repetition at no cost.
var faultCounters = []counter{
	{unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_PAGE_FAULTS_MIN, results.Metric{Name: "k.minor_faults", Unit: "count", Better: "lower", Desc: "minor page faults of the child's tasks (perf)"}},
	{unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_PAGE_FAULTS_MAJ, results.Metric{Name: "k.major_faults", Unit: "count", Better: "lower", Desc: "major page faults of the child's tasks (perf)"}},
}

var hardwareCounters = []counter{
	{unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CPU_CYCLES, results.Metric{Name: "k.cycles", Unit: "count", Better: "lower", Desc: "CPU cycles of the child's tasks (perf, scaled if multiplexed)"}},
	{unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_INSTRUCTIONS, results.Metric{Name: "k.instructions", Unit: "count", Desc: "instructions retired by the child's tasks (perf, scaled if multiplexed)"}},
	{unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CACHE_MISSES, results.Metric{Name: "k.cache_misses", Unit: "count", Better: "lower", Desc: "last-level cache misses of the child's tasks (perf)"}},
	{unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_MISSES, results.Metric{Name: "k.branch_misses", Unit: "count", Better: "lower", Desc: "mispredicted branches of the child's tasks (perf)"}},
}

// perf counts events of the child with inherit: every thread and process
// it creates after the counters are attached (at its first instruction)
// is counted, and their counts are folded into the child's when they
// exit, so a read after the process group is reaped holds the total.
type perf struct {
	name     string
	counters []counter
	fds      []int
}

// openPerf opens the collector name ("perf", "faults" or "hw") of
// counters cs.
func openPerf(name string, cs []counter) (*perf, error) {
	p := &perf{name: name, counters: cs}
	// Probe: count this thread for a moment.
	for _, c := range cs {
		fd, err := p.open(c, 0, false)
		if err != nil {
			return nil, perfReason(name, err)
		}
		unix.Close(fd)
	}
	return p, nil
}

func perfReason(name string, err error) error {
	switch {
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		par, _ := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		return fmt.Errorf("perf_event_open: no permission (kernel.perf_event_paranoid=%s); run as root or lower it", strings.TrimSpace(string(par)))
	case name == "hw" && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENODEV)):
		return fmt.Errorf("no hardware performance counters on this machine (perf_event_open: %v; a virtual machine without a virtual PMU?)", err)
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("the kernel has no perf_event_open (CONFIG_PERF_EVENTS off)")
	}
	return fmt.Errorf("perf_event_open: %v", err)
}

const perfReadFormat = unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING

// open opens counter c on pid (0: the calling thread). Opened on the
// thread that starts the child (onExec), it is disabled there, inherited
// by the child at fork and enabled by the child's exec.
func (p *perf) open(c counter, pid int, onExec bool) (int, error) {
	if p.name != "hw" && injected("no-perf") || p.name == "hw" && injected("no-hw") {
		if p.name == "hw" {
			return -1, unix.ENOENT
		}
		return -1, unix.EACCES
	}
	attr := unix.PerfEventAttr{
		Type:        c.typ,
		Config:      c.config,
		Size:        uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Read_format: perfReadFormat,
		Bits:        unix.PerfBitInherit,
	}
	if onExec {
		attr.Bits |= unix.PerfBitDisabled | unix.PerfBitEnableOnExec
	}
	return unix.PerfEventOpen(&attr, pid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
}

func (p *perf) Name() string { return p.name }

func (p *perf) Metrics() []results.Metric {
	var ms []results.Metric
	for _, c := range p.counters {
		ms = append(ms, c.metric)
	}
	if p.name == "faults" {
		ms = append(ms, pageFaultsMetric)
	}
	return ms
}

// pageFaultsMetric is the sum of the minor and major fault counters.
var pageFaultsMetric = results.Metric{Name: "k.page_faults", Unit: "count", Better: "lower", Desc: "page faults of the child's tasks (perf minor + major faults)"}

// preStart opens the counters on the calling thread, the one that starts
// the child: disabled, inherited by the child, enabled by its exec. The
// thread itself never execs, so they count nothing of contend.
func (p *perf) preStart() error {
	p.closeFDs()
	for _, c := range p.counters {
		fd, err := p.open(c, 0, true)
		if err != nil {
			p.closeFDs()
			return perfReason(p.name, err)
		}
		p.fds = append(p.fds, fd)
	}
	return nil
}

// Start has nothing to do: the counters came with the child.
func (p *perf) Start(int) error { return nil }

func (p *perf) Stop() (map[string]float64, []string, error) {
	defer p.closeFDs()
	if len(p.fds) != len(p.counters) {
		return nil, nil, fmt.Errorf("counters not open")
	}
	m := map[string]float64{}
	var notes []string
	buf := make([]byte, 24)
	if p.name == "faults" {
		defer func() {
			// The total is derived: one counter less on every fault.
			if _, ok := m["k.minor_faults"]; ok {
				m["k.page_faults"] = m["k.minor_faults"] + m["k.major_faults"]
			}
		}()
	}
	for i, fd := range p.fds {
		n, err := unix.Read(fd, buf)
		if err != nil || n != len(buf) {
			return nil, nil, fmt.Errorf("cannot read the %s counter: %v", p.counters[i].metric.Name, err)
		}
		val := binary.LittleEndian.Uint64(buf[0:])
		enabled := binary.LittleEndian.Uint64(buf[8:])
		running := binary.LittleEndian.Uint64(buf[16:])
		x := float64(val)
		if running > 0 && running < enabled {
			x = x * float64(enabled) / float64(running)
			notes = append(notes, fmt.Sprintf("%s multiplexed: counted %.0f%% of the time, scaled", p.counters[i].metric.Name, 100*float64(running)/float64(enabled)))
		}
		m[p.counters[i].metric.Name] = x
	}
	return m, notes, nil
}

func (p *perf) closeFDs() {
	for _, fd := range p.fds {
		unix.Close(fd)
	}
	p.fds = nil
}

func (p *perf) Close() error { p.closeFDs(); return nil }
