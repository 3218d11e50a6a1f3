package evidence

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"contend/internal/results"
)

// system reads system-wide counters before the child's first instruction
// and after it is reaped: pressure stall totals (/proc/pressure), vmstat
// and interrupt counts. They cover the whole machine over the
// repetition, not only the child: every such metric's name starts with
// k.sys.
type system struct {
	procRoot string
	metrics  []results.Metric
	before   map[string]float64
}

// psiFiles are the pressure files and lines read, with their metrics.
var psiMetrics = []struct{ file, line, name, desc string }{
	{"cpu", "some", "k.sys.psi_cpu_some", "system-wide time some runnable task waited for a CPU (PSI cpu some total)"},
	{"memory", "some", "k.sys.psi_memory_some", "system-wide time some task stalled on memory (PSI memory some total)"},
	{"memory", "full", "k.sys.psi_memory_full", "system-wide time all non-idle tasks stalled on memory (PSI memory full total)"},
	{"io", "some", "k.sys.psi_io_some", "system-wide time some task stalled on I/O (PSI io some total)"},
}

// vmstatKeys are the /proc/vmstat counters kept (deltas).
var vmstatKeys = []struct{ key, desc string }{
	{"pgfault", "system-wide page faults"},
	{"pgmajfault", "system-wide major page faults"},
	{"thp_fault_alloc", "system-wide huge pages allocated at fault"},
	{"thp_fault_fallback", "system-wide huge page faults that fell back to small pages"},
	{"thp_split_pmd", "system-wide huge page mappings split"},
	{"thp_collapse_alloc", "system-wide huge pages collapsed by khugepaged"},
	{"numa_hint_faults", "system-wide NUMA hinting faults"},
	{"numa_pages_migrated", "system-wide pages migrated by NUMA balancing"},
	{"numa_miss", "system-wide allocations that missed their preferred node"},
}

// irqKinds are the /proc/interrupts rows kept (sum over CPUs, deltas).
var irqKinds = []struct{ row, name, desc string }{
	{"TLB", "k.sys.irq_tlb", "system-wide TLB shootdown interrupts"},
	{"RES", "k.sys.irq_resched", "system-wide rescheduling IPIs"},
	{"CAL", "k.sys.irq_call", "system-wide function-call IPIs"},
	{"LOC", "k.sys.irq_timer", "system-wide local timer interrupts"},
}

func openSystem() (*system, error) {
	s := &system{procRoot: "/proc"}
	if r := os.Getenv("CONTEND_TEST_PROC"); r != "" {
		s.procRoot = r
	}
	snap, err := s.snapshot()
	if err != nil {
		return nil, err
	}
	for _, p := range psiMetrics {
		if _, ok := snap[p.name]; ok {
			s.metrics = append(s.metrics, results.Metric{Name: p.name, Unit: "ns", Better: "lower", Desc: p.desc})
		}
	}
	for _, v := range vmstatKeys {
		if _, ok := snap["k.sys."+v.key]; ok {
			s.metrics = append(s.metrics, results.Metric{Name: "k.sys." + v.key, Unit: "count", Better: "lower", Desc: v.desc})
		}
	}
	for _, k := range irqKinds {
		if _, ok := snap[k.name]; ok {
			s.metrics = append(s.metrics, results.Metric{Name: k.name, Unit: "count", Better: "lower", Desc: k.desc})
		}
	}
	if len(s.metrics) == 0 {
		return nil, fmt.Errorf("none of %s/pressure, %s/vmstat, %s/interrupts is readable", s.procRoot, s.procRoot, s.procRoot)
	}
	return s, nil
}

func (s *system) note() string {
	var missing []string
	snapHas := map[string]bool{}
	for _, m := range s.metrics {
		snapHas[m.Name] = true
	}
	if !snapHas["k.sys.psi_cpu_some"] {
		missing = append(missing, "no pressure stall information (kernel without CONFIG_PSI or booted with psi=0)")
	}
	return strings.Join(missing, "; ")
}

// snapshot reads every counter now.
func (s *system) snapshot() (map[string]float64, error) {
	m := map[string]float64{}
	for _, p := range psiMetrics {
		b, err := os.ReadFile(s.procRoot + "/pressure/" + p.file)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || f[0] != p.line {
				continue
			}
			for _, kv := range f[1:] {
				if v, ok := strings.CutPrefix(kv, "total="); ok {
					if x, err := strconv.ParseFloat(v, 64); err == nil {
						m[p.name] = x * 1000 // microseconds
					}
				}
			}
		}
	}
	if b, err := os.ReadFile(s.procRoot + "/vmstat"); err == nil {
		want := map[string]bool{}
		for _, v := range vmstatKeys {
			want[v.key] = true
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), " ")
			if want[k] {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					m["k.sys."+k] = x
				}
			}
		}
	}
	if b, err := os.ReadFile(s.procRoot + "/interrupts"); err == nil {
		lines := strings.Split(string(b), "\n")
		ncpu := len(strings.Fields(lines[0]))
		rows := map[string]string{}
		for _, k := range irqKinds {
			rows[k.row+":"] = k.name
		}
		for _, line := range lines[1:] {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			name, ok := rows[f[0]]
			if !ok {
				continue
			}
			sum := 0.0
			for i := 1; i < len(f) && i <= ncpu; i++ {
				x, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					break
				}
				sum += x
			}
			m[name] = sum
		}
	}
	return m, nil
}

func (s *system) Name() string              { return "system" }
func (s *system) Metrics() []results.Metric { return s.metrics }

// preStart takes the first snapshot just before the child is started.
func (s *system) preStart() error {
	b, err := s.snapshot()
	s.before = b
	return err
}

func (s *system) Start(int) error { return nil }

func (s *system) Stop() (map[string]float64, []string, error) {
	after, err := s.snapshot()
	if err != nil {
		return nil, nil, err
	}
	m := map[string]float64{}
	for _, mt := range s.metrics {
		a, okA := s.before[mt.Name]
		b, okB := after[mt.Name]
		if okA && okB && b >= a {
			m[mt.Name] = b - a
		}
	}
	return m, nil, nil
}

func (s *system) Close() error { return nil }
