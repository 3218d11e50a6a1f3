package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"contend/bind"
	"contend/internal/limits"
	"contend/internal/plural"
)

// Faultme is Steven Rostedt's page-fault test. Its hot loop is
// native/faultme.c, its binding bind/faultme.go.
var Faultme = &Workload{
	Name:       "faultme",
	Summary:    "threads taking read faults on one fresh mapping (mmap_lock readers)",
	Provenance: "Steven Rostedt, LKML 2012-05-15, \"Re: [RFC][PATCH RT] rwsem_rt: Another (more sane) approach to mulit reader rt locks\", attachment faultme.c",
	Doc: `Maps --mem bytes of anonymous, private, read-only memory and lets --threads
threads read one byte every --stride bytes of it, interleaved page by page
(thread k reads pages k, k+threads, ...), all released by one barrier. Every
read takes a page fault with mmap_lock held for read, so the test measures how
well the fault path scales with concurrent readers. The time is taken by the
main thread just before the start barrier and just after the stop barrier.

Fixed from the original: its loads are dead code at -O2 (the static byte they
store into is never read), so the byte is volatile here; the clock is
CLOCK_MONOTONIC in ns. Output in --format original is the original's two
lines, "map=BYTES" and "time = N usecs".

Where the kernel has no zero page for read faults (some virtual machines,
PVM guests booted with pvm_no_zero_page=1 for one), every page read allocates
real memory: --mem must fit in available memory. Each repetition's note says
which regime ran.

--thp never on a kernel built without THP (Debian's -rt kernels) holds: its
madvise(MADV_NOHUGEPAGE) fails with EINVAL, there being no huge pages to
refuse, and each repetition runs and notes "thp: not built" (the
fingerprint's thp.enabled says "not built" too). Without --thp, a kernel
with THP set to always maps the huge zero page on read faults (one fault per
2 MiB where the mapping is 2 MiB-aligned; kernels before 6.7 do not align
it, and its two unaligned ends take up to 511 faults of 4 KiB each):
compare such kernels with --thp never.

Default --threads 400 is the original's, kept for faithfulness: 400
readers pile up on mmap_lock even on 2 CPUs, as in the original's figures.
It does not follow the CPUs: on a machine of more than 400 CPUs it leaves
CPUs idle, so give --threads at the CPU count or more there (contend sweep
faultme --threads 1..N). The threads' tasks, stacks and mappings are
checked against the machine's limits before the run.`,
	Metrics: []Metric{
		{Name: "time", Unit: "ns", Better: Lower, Desc: "timed region: start barrier to stop barrier, read by main"},
		{Name: "pages", Unit: "count", Better: Either, Desc: "pages read by all threads (= ceil(mem/stride))"},
		{Name: "faults", Unit: "count", Better: Either, Desc: "minor faults taken during the timed region"},
		{Name: "majfaults", Unit: "count", Better: Either, Desc: "major faults taken during the timed region"},
		{Name: "rss_anon", Unit: "bytes", Better: Either, Desc: "RssAnon after the timed region (the whole child's: the pages read where read faults allocate, the threads' stacks, libc's heap)"},
		{Name: "rss_anon_added", Unit: "bytes", Better: Either, Desc: "RssAnon gained over the timed region: about 0 where read faults map the zero page, the pages read where they allocate"},
	},
	Primary: "time",
	Throughput: PerSecond("pages/s", "pages read per second of the timed region (pages / time)", "time",
		func(_ *bind.FaultmeParams, m map[string]float64) float64 { return m["pages"] }),
	// More readers than CPUs are time-sliced, not concurrent faulters.
	OversubscribeWarn: true,
	Output: &Output{
		Preset: "faultme",
		Desc:   "Rostedt's faultme: \"time = N usecs\"",
		Metrics: []OutputMetric{
			{"time", `(?m)^time = (\d+) usecs\s*$`, "us", Lower, "faultme's timed region, start barrier to stop barrier (its \"time = N usecs\")"},
		},
		Primary: "time",
	},
	Quick: []string{"--threads", "4", "--mem", "32MiB"},
	Funcs: Typed[bind.FaultmeParams]{
		Check: checkFaultme,
		Run:   runFaultme,
		Lean:  leanFaultme,
		Original: func(p *bind.FaultmeParams, s Sample, _ map[string]float64) []string {
			return []string{
				fmt.Sprintf("map=%d", p.Mem),
				fmt.Sprintf("time = %d usecs", int64(s.Metrics["time"])/1000),
			}
		},
		Timeout: func(p *bind.FaultmeParams) time.Duration {
			// Generous: about 10x what this 2-core VM needs (3 s per GiB,
			// hypervisor-bound), plus thread start-up.
			gib := float64(p.Mem) / (1 << 30)
			return 2*time.Minute + time.Duration(gib*30*float64(time.Second)) + time.Duration(p.Threads)*time.Millisecond
		},
	},
}

func init() { Register(Faultme) }

func checkFaultme(p *bind.FaultmeParams, m limits.Machine) ([]string, error) {
	threads, mem, stride := int64(p.Threads), int64(p.Mem), int64(p.Stride)
	if stride > mem && mem < 1<<20 {
		// A bare number is bytes: --mem 64 is 64 bytes, less than one
		// page, which no one maps on purpose.
		return nil, Usagef("--mem: %d bytes is less than one --stride (%s); did you mean %dMiB? accepted: a size of --stride or more, such as 64MiB or 1GiB", mem, FormatSize(stride), mem)
	}
	if stride > mem {
		return nil, Usagef("--stride: %s is larger than --mem %s; accepted: 1 byte to --mem", FormatSize(stride), FormatSize(mem))
	}
	warns, err := checkThreads("threads", threads, m.ThreadStack, m)
	if err != nil {
		return nil, err
	}
	// Every thread reserves a stack of the default size (ulimit -s)
	// besides the mapping itself.
	need := mem + threads*m.ThreadStack
	if m.AddressSpace > 0 && need > m.AddressSpace {
		return nil, Usagef("--mem: %s plus %s of %s (ulimit -s) exceed the address-space limit RLIMIT_AS (ulimit -v) of %s", FormatSize(mem), plural.N(int(threads), "thread stack", "thread stacks"), FormatSize(m.ThreadStack), FormatSize(m.AddressSpace))
	}
	if m.AddressGap > 0 && mem > m.AddressGap {
		return nil, Usagef("--mem: %s does not fit in the address space: the largest free range a process can count on here is %s, and the mapping must be one range; lower --mem", FormatSize(mem), FormatSize(m.AddressGap))
	}
	if m.Overcommit == 2 && m.CommitLimit > 0 && mem > m.CommitLimit-m.Committed {
		return nil, Usagef("--mem: %s is more than the memory left to commit (%s; vm.overcommit_memory=2)", FormatSize(mem), FormatSize(m.CommitLimit-m.Committed))
	}
	// Pages really allocated when read faults cannot map the zero page:
	// one 4 KiB page per page read (more with THP). A stride below the
	// page reads every page once (several reads a page), not one page a
	// read: --stride 1 over 32 MiB allocates 32 MiB, not 128 GiB.
	need = (mem + max(stride, 4096) - 1) / max(stride, 4096) * 4096
	if m.MemAvailable > 0 && need > m.MemAvailable {
		switch {
		case m.NoZeroPage && !m.Force:
			return nil, Usagef("--mem: reading %s allocates %s here (the zero page is disabled on the kernel command line), more than the %s available; lower --mem or --stride, or give --force", FormatSize(mem), FormatSize(need), FormatSize(m.MemAvailable))
		case m.NoZeroPage:
			warns = append(warns, fmt.Sprintf("--mem %s needs %s of RAM here (no zero page) but %s is available: the run may swap or be killed (--force given)", FormatSize(mem), FormatSize(need), FormatSize(m.MemAvailable)))
		default:
			warns = append(warns, fmt.Sprintf("--mem %s would not fit in available memory (%s) if read faults allocated real pages (no zero page)", FormatSize(mem), FormatSize(m.MemAvailable)))
		}
	}
	return warns, nil
}

func runFaultme(p *bind.FaultmeParams, rt Runtime) (Sample, error) {
	p.ReportFD, p.Inject = int32(rt.ReportFD), testInject()&bind.InjectMadviseEINVAL
	r, err := bind.Faultme(*p)
	if err != nil {
		return Sample{}, err
	}
	return faultmeSample(r)
}

// leanFaultme runs faultme in a lean child, as the original runs: its 400
// threads beside nothing but libc's, in an address space that holds little
// else. The child sets the report pipe and a test's injection itself
// (native/lean.c).
func leanFaultme(p *bind.FaultmeParams) ([]byte, func(int, []byte) (Sample, error)) {
	params, result := bind.FaultmeLean(*p)
	return params, func(rc int, b []byte) (Sample, error) {
		r, err := result(rc, b)
		if err != nil {
			return Sample{}, err
		}
		return faultmeSample(r)
	}
}

// faultmeSample is the Sample of one repetition's result; a THP refusal on
// a kernel that has THP is an error.
func faultmeSample(r bind.FaultmeResult) (Sample, error) {
	var notes []string
	if r.THPEINVAL {
		// --thp never on a kernel built without THP holds: no huge
		// page can be mapped. With THP in sysfs, EINVAL is a failure.
		if THPBuilt() != THPAbsent {
			return Sample{}, fmt.Errorf("madvise MADV_NOHUGEPAGE failed: EINVAL, although this kernel has THP (%s is there or sysfs is not mounted): --thp leave runs without the madvise", thpDir)
		}
		notes = append(notes, "thp: not built (--thp never holds: this kernel has no transparent huge pages, its MADV_NOHUGEPAGE said EINVAL)")
	}
	s := Sample{Metrics: map[string]float64{
		"time":           float64(r.ElapsedNs),
		"pages":          float64(r.PagesTouched),
		"faults":         float64(r.MinFlt),
		"majfaults":      float64(r.MajFlt),
		"rss_anon":       float64(r.RSSAnonKiB * 1024),
		"rss_anon_added": float64(int64(r.RSSAnonKiB)-int64(r.RSSAnonBeforeKiB)) * 1024,
	}}
	if n := zeroPageNote(r); n != "" {
		s.Notes = append(s.Notes, n)
	}
	s.Notes = append(s.Notes, notes...)
	return s, nil
}

// thpDir is where a kernel with THP shows it, under $CONTEND_SYSROOT.
const thpDir = "/sys/kernel/mm/transparent_hugepage"

// THP states of the running kernel (THPBuilt).
const (
	THPPresent = "present"   // thpDir exists
	THPAbsent  = "not built" // /sys/kernel/mm exists, thpDir does not
	THPUnknown = "unknown"   // sysfs is not there to say
)

// THPBuilt says whether the running kernel has transparent huge pages,
// from sysfs under $CONTEND_SYSROOT (tests use a fake root).
func THPBuilt() string {
	root := os.Getenv("CONTEND_SYSROOT")
	if _, err := os.Stat(filepath.Join(root, thpDir)); err == nil {
		return THPPresent
	}
	if _, err := os.Stat(filepath.Join(root, filepath.Dir(thpDir))); err == nil {
		return THPAbsent
	}
	return THPUnknown
}

// zeroPageNote says which pages faultme's read faults mapped, from the
// RssAnon the timed region added (not the child's whole RssAnon, about 1
// MiB of which is the Go runtime's heap): with the zero page reads add
// nothing, without it every page read is a page allocated (4 KiB, or
// 2 MiB with THP). A quarter of the pages read is the line between the
// two, well above what the threads' first touches of their stacks add.
// Many pages per fault (16 or more) means the huge zero page.
func zeroPageNote(r bind.FaultmeResult) string {
	if r.PagesTouched == 0 {
		return ""
	}
	added := (int64(r.RSSAnonKiB) - int64(r.RSSAnonBeforeKiB)) * 1024
	switch {
	case float64(added) >= float64(r.PagesTouched)*4096/4:
		return "read faults allocated real pages (no zero page: rss_anon_added, the RssAnon the timed region added, is a quarter of the pages read or more)"
	case r.MinFlt > 0 && r.MinFlt*16 <= r.PagesTouched:
		return "read faults mapped the shared huge zero page (16 pages read or more per fault; rss_anon_added, the RssAnon the timed region added, under a quarter of the pages read)"
	}
	return "read faults mapped the shared zero page (rss_anon_added, the RssAnon the timed region added, under a quarter of the pages read)"
}
