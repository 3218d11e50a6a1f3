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
	tick     float64 // USER_HZ: /proc/stat's unit
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

// vmstatKeys are the /proc/vmstat event counters kept (deltas), those a
// fault or a change of memory shows in. A key ending in "_" is the sum of
// every counter it starts (pgalloc_ sums the zones' pgalloc_dma,
// pgalloc_dma32, pgalloc_normal, pgalloc_movable, pgalloc_device), named
// without the "_". The kernel's gauges (nr_*) are not kept: after the
// reap the child's memory is freed again. Left out: numa_hit and
// numa_local, which equal pgalloc on one node (numa_miss, numa_foreign and
// numa_other tell where allocations went elsewhere). No counter counts the
// faults that map the zero page or the huge zero page: a read fault that
// maps the huge zero page shows in pgfault only (thp_fault_alloc stays 0),
// one that maps the 4 KiB zero page in pgfault without pgalloc.
var vmstatKeys = []struct{ key, better, desc string }{
	{"pgfault", "lower", "system-wide page faults, minor and major, 4 KiB or huge (a fault retried after dropping mmap_lock counts again)"},
	{"pgmajfault", "lower", "system-wide major page faults (the page read from a file or swap)"},
	{"pgalloc_", "", "system-wide pages allocated, summed over the zones (in 4 KiB pages: a 2 MiB huge page counts 512)"},
	{"pgfree", "", "system-wide pages freed (in 4 KiB pages: a 2 MiB huge page counts 512)"},
	{"pgreuse", "", "system-wide write faults that reused the page in place instead of copying it (wp_page_reuse)"},
	{"thp_fault_alloc", "", "system-wide huge pages allocated at an anonymous fault (not the huge zero page: thp_zero_page_alloc)"},
	{"thp_fault_fallback", "lower", "system-wide anonymous faults that wanted a huge page and fell back to small pages (no huge page, or no huge zero page, could be had)"},
	{"thp_fault_fallback_charge", "lower", "system-wide anonymous faults that fell back to small pages because the memory cgroup charge of the huge page failed"},
	{"thp_zero_page_alloc", "", "system-wide allocations of the huge zero page itself: one when a read fault first needs it (after boot, or after the shrinker freed it when no process mapped it), not one per fault that maps it (those show in pgfault only)"},
	{"thp_zero_page_alloc_failed", "lower", "system-wide failed allocations of the huge zero page (the fault falls back: thp_fault_fallback)"},
	{"thp_file_alloc", "", "system-wide shmem huge pages allocated (tmpfs, shared anonymous memory)"},
	{"thp_file_fallback", "lower", "system-wide shmem huge page allocations that failed and fell back to small pages"},
	{"thp_split_pmd", "", "system-wide huge page mappings (PMDs) split into small-page mappings"},
	{"thp_split_page", "", "system-wide huge pages split into small pages"},
	{"thp_split_page_failed", "", "system-wide huge pages that could not be split"},
	{"thp_deferred_split_page", "", "system-wide huge pages queued to be split when memory is short (partly unmapped)"},
	{"thp_collapse_alloc", "", "system-wide huge pages allocated by khugepaged to collapse small pages into"},
	{"thp_collapse_alloc_failed", "", "system-wide failed huge page allocations of khugepaged"},
	{"thp_migration_success", "", "system-wide huge pages migrated without being split"},
	{"thp_migration_fail", "", "system-wide huge pages that could neither be migrated nor split"},
	{"thp_migration_split", "", "system-wide huge pages split during migration"},
	{"compact_stall", "lower", "system-wide direct compactions: a task stalled to compact memory for an allocation (a huge page at a fault, say)"},
	{"compact_fail", "lower", "system-wide direct compactions that freed no page of the order wanted"},
	{"compact_success", "", "system-wide direct compactions that freed a page of the order wanted"},
	{"pgmigrate_success", "", "system-wide pages migrated (compaction, NUMA balancing, memory hotplug)"},
	{"pgmigrate_fail", "", "system-wide pages that failed to migrate"},
	{"allocstall_", "lower", "system-wide direct reclaims: an allocation stalled to reclaim memory (summed over the zones)"},
	{"pgscan_direct", "lower", "system-wide pages scanned by direct reclaim"},
	{"pgsteal_direct", "lower", "system-wide pages reclaimed by direct reclaim"},
	{"pgscan_kswapd", "", "system-wide pages scanned by kswapd (background reclaim)"},
	{"pgsteal_kswapd", "", "system-wide pages reclaimed by kswapd (background reclaim)"},
	{"pswpin", "lower", "system-wide pages read from swap"},
	{"pswpout", "lower", "system-wide pages written to swap"},
	{"oom_kill", "lower", "system-wide processes killed by the OOM killer"},
	{"numa_miss", "", "system-wide pages allocated on a node other than the one wanted (NUMA)"},
	{"numa_foreign", "", "system-wide pages wanted from a node and allocated on another, counted on the node wanted (NUMA; the same pages as numa_miss, summed over nodes)"},
	{"numa_other", "", "system-wide pages allocated on a node other than the allocating CPU's (NUMA)"},
	{"numa_interleave", "", "system-wide pages allocated by an interleave memory policy on the node it chose (NUMA)"},
	{"numa_pte_updates", "", "system-wide page table entries NUMA balancing marked to take hinting faults"},
	{"numa_huge_pte_updates", "", "system-wide huge page table entries NUMA balancing marked to take hinting faults"},
	{"numa_hint_faults", "", "system-wide NUMA hinting faults (NUMA balancing)"},
	{"numa_hint_faults_local", "", "system-wide NUMA hinting faults on a page of the faulting CPU's node"},
	{"numa_pages_migrated", "", "system-wide pages migrated by NUMA balancing"},
}

// vmstatName is the metric of vmstat key k.
func vmstatName(k string) string { return "k.sys." + strings.TrimSuffix(k, "_") }

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
	s.tick = clockTick(s.procRoot)
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
		if _, ok := snap[vmstatName(v.key)]; ok {
			s.metrics = append(s.metrics, results.Metric{Name: vmstatName(v.key), Unit: "count", Better: v.better, Desc: v.desc})
		}
	}
	for _, k := range irqKinds {
		if _, ok := snap[k.name]; ok {
			s.metrics = append(s.metrics, results.Metric{Name: k.name, Unit: "count", Better: "lower", Desc: k.desc})
		}
	}
	for _, k := range cpuKinds {
		if _, ok := snap[k.name]; ok {
			s.metrics = append(s.metrics, results.Metric{Name: k.name, Unit: "ns", Better: k.better, Desc: k.desc})
		}
	}
	for _, k := range softirqKinds {
		if _, ok := snap[k.name]; ok {
			s.metrics = append(s.metrics, results.Metric{Name: k.name, Unit: "count", Better: "lower", Desc: k.desc})
		}
	}
	if len(s.metrics) == 0 {
		return nil, fmt.Errorf("none of %s/pressure, %s/vmstat, %s/interrupts, %s/stat, %s/softirqs is readable", s.procRoot, s.procRoot, s.procRoot, s.procRoot, s.procRoot)
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
		var sums []string
		for _, v := range vmstatKeys {
			if strings.HasSuffix(v.key, "_") {
				sums = append(sums, v.key)
			} else {
				want[v.key] = true
			}
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), " ")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			if want[k] {
				m[vmstatName(k)] = x
			}
			for _, p := range sums {
				if strings.HasPrefix(k, p) {
					m[vmstatName(p)] += x
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
	readCPUKinds(s.procRoot, s.tick, m)
	readSoftirqs(s.procRoot, m)
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
