package evidence

import (
	"fmt"
	"strings"
	"testing"
)

// TestBPFMapSizes: the maps are sized from the run, at 2, 64 and 512
// CPUs and 1,000 and 24,576 tasks (mmtests' futexbench at 64 threads a
// CPU of a 384-CPU box): every task of the child fits in the set, in a
// contention and switched out at once, every task's and CPU's lock in
// the waits, two callers a lock; the maps of the largest run take less
// than 64 MiB of kernel memory; an unknown run is sized for 64 tasks a
// CPU, at least 1,024.
func TestBPFMapSizes(t *testing.T) {
	for _, cpus := range []int{2, 64, 512} {
		for _, tasks := range []int64{1000, 24576} {
			t.Run(fmt.Sprintf("%dcpus-%dtasks", cpus, tasks), func(t *testing.T) {
				s := sizesFor(Run{Tasks: tasks, CPUs: cpus})
				c := int64(cpus)
				for _, m := range []struct {
					name      string
					got, need int64
				}{
					{"tgids", int64(s.Tasks), tasks + 1},
					{"starts", int64(s.Starts), tasks + c},
					{"waits", int64(s.Locks), tasks + 4*c},
					{"callers", int64(s.Callers), 2 * (tasks + 4*c)},
					{"offs", int64(s.Offs), tasks + c},
					{"futexes", int64(s.Futexes), tasks},
				} {
					if m.got < m.need {
						t.Errorf("%s: %d entries, the run needs %d", m.name, m.got, m.need)
					}
				}
				if s.CPUs != cpus {
					t.Errorf("sized for %d CPUs, want %d", s.CPUs, cpus)
				}
				if b := s.bytes(); b > 64<<20 {
					t.Errorf("%d MiB of maps", b>>20)
				}
				for name, n := range s.lockMaps() {
					if n < 1 || n > maxMapEntries {
						t.Errorf("lock map %s: %d entries", name, n)
					}
				}
			})
		}
	}
	// The old fixed sizes (16,384 contentions at once) could not hold
	// 24,576 tasks; the sizes grow with the tasks and the CPUs.
	small, big := sizesFor(Run{Tasks: 1000, CPUs: 2}), sizesFor(Run{Tasks: 24576, CPUs: 512})
	if small.Starts >= big.Starts || small.Locks >= big.Locks || small.bytes() >= big.bytes() {
		t.Errorf("sizes do not grow with the run: %+v, %+v", small, big)
	}
	for _, cpus := range []int{2, 512} {
		if s := sizesFor(Run{CPUs: cpus}); int64(s.Tasks) < max(64*int64(cpus), 1024) {
			t.Errorf("unknown run at %d CPUs: %d task ids, want room for %d", cpus, s.Tasks, max(64*cpus, 1024))
		}
	}
	if s := sizesFor(Run{Tasks: 1 << 30, CPUs: 2}); s.Tasks != maxMapEntries || s.Callers != maxMapEntries {
		t.Errorf("a run of 2^30 tasks: %d task ids, %d callers; want the bound %d", s.Tasks, s.Callers, maxMapEntries)
	}
}

// TestProfileBufferBounded: perf's ring buffers are 8 MiB a CPU up to
// 32 CPUs, then shrink so that all of them stay within 256 MiB, never
// below 512 KiB a CPU; always a power of 2.
func TestProfileBufferBounded(t *testing.T) {
	for _, c := range []struct{ cpus, want int }{{1, 8 << 20}, {2, 8 << 20}, {32, 8 << 20}, {64, 4 << 20}, {512, 512 << 10}, {4096, 512 << 10}} {
		got := profileBufferFor(c.cpus)
		if got != c.want || got&(got-1) != 0 {
			t.Errorf("%d CPUs: %d bytes a CPU, want %d", c.cpus, got, c.want)
		}
	}
}

// TestProfileRateBounded: each CPU is sampled at profileRate up to 16
// CPUs, then at a share of profileSamples (at least profileRateLo), so
// the samples a second in all stop growing with the CPUs; the rate is
// what perf record is given and what the header and metric say.
func TestProfileRateBounded(t *testing.T) {
	for _, c := range []struct{ cpus, want int }{{0, 499}, {1, 499}, {2, 499}, {16, 499}, {17, 469}, {64, 124}, {512, 15}, {4096, 10}} {
		got := profileRateFor(c.cpus)
		if got != c.want {
			t.Errorf("%d CPUs: %d Hz a CPU, want %d", c.cpus, got, c.want)
		}
		if c.cpus >= 16 && c.cpus*got > profileSamples && got != profileRateLo {
			t.Errorf("%d CPUs at %d Hz: %d samples a second, more than %d", c.cpus, got, c.cpus*got, profileSamples)
		}
	}
	p, err := openProfile(64)
	if err != nil {
		t.Skip(err)
	}
	defer p.Close()
	args := strings.Join(p.recordArgs("x", true), " ")
	if p.event == "cpu-clock" && !strings.Contains(args, "-e cpu-clock:I ") {
		t.Errorf("perf record %s: cpu-clock sampled in the idle task too", args)
	}
	if !strings.Contains(args, "-F 124 ") || !strings.Contains(p.note(), "124 Hz a CPU on 64 CPUs") || !strings.Contains(p.Metrics()[0].Desc, "at 124 Hz") {
		t.Errorf("64 CPUs: perf record %s; header %q; metric %q", args, p.note(), p.Metrics()[0].Desc)
	}
}

// TestBPFLostCounted: maps forced too small for the run (a set of 2
// process ids for a shell that forks 20 processes, 2 switched-out tasks)
// make the programs count what they could not record: k.lock.lost and
// k.offcpu.lost are above 0, with a note each; at the run's sizes the
// same shell loses nothing and both metrics are 0.
func TestBPFLostCounted(t *testing.T) {
	needBPF(t)
	script := "i=0; while [ $i -lt 20 ]; do /bin/true; i=$((i+1)); done"
	run := func(sizes bpfSizes) (map[string]float64, []string) {
		t.Helper()
		lk, err := openLockBPF(sizes)
		if err != nil {
			t.Skip(err)
		}
		oc, err := openOffcpu(sizes)
		if err != nil {
			lk.Close()
			t.Skip(err)
		}
		s := &Set{Active: []Collector{lk, oc}, Avail: map[string]string{"lock": "available", "offcpu": "available"}}
		defer s.Close()
		m, notes, _ := runSet(t, s, "/bin/sh", "-c", script)
		return m, notes
	}
	tiny := bpfSizes{Tasks: 2, Starts: 2, Locks: 2, Callers: 2, Offs: 2, Futexes: 2, CPUs: 2}
	m, notes := run(tiny)
	if m[LockLost] <= 0 || m[OffcpuLost] <= 0 {
		t.Errorf("tiny maps: %s %v, %s %v; want both above 0", LockLost, m[LockLost], OffcpuLost, m[OffcpuLost])
	}
	for _, want := range []string{"lock evidence: ", "offcpu evidence: "} {
		if !strings.Contains(strings.Join(notes, "\n"), want) {
			t.Errorf("no note starting %q: %q", want, notes)
		}
	}
	m, notes = run(sizesFor(Run{Tasks: 21}))
	lost, ok1 := m[LockLost]
	olost, ok2 := m[OffcpuLost]
	if !ok1 || !ok2 || lost != 0 || olost != 0 || len(notes) > 0 {
		t.Errorf("the run's sizes: %s %v (recorded %v), %s %v (recorded %v), notes %q; want 0 and 0, recorded, no note", LockLost, lost, ok1, OffcpuLost, olost, ok2, notes)
	}
}
