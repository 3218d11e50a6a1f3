package tune

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Readiness is what `contend check` shows about the machine under a root.
type Readiness struct {
	Plan     []Result
	Saved    *State // nil: not tuned by contend
	Load     string // /proc/loadavg's three averages
	Online   []int
	Busy     []Proc // the processes that used CPU during the interval, most first
	Isolated string // sys/devices/system/cpu/isolated
	NohzFull string // sys/devices/system/cpu/nohz_full
	Cmdline  []string
	SMT      string           // "on", "off", or "" (unknown)
	Freq     string           // cpu0's frequency range, or ""
	Throttle map[string]int64 // thermal_throttle counter name -> sum over CPUs
	// PageReporting is PageReporting's word: does the host take back
	// the memory a run frees?
	PageReporting string
}

// Proc is one process and the CPU it used during the check's interval.
type Proc struct {
	Pid  int
	Comm string
	CPU  float64 // share of one CPU, 0..N
}

// CheckMachine reads the readiness of the machine under root, watching
// the processes' CPU use for interval.
func CheckMachine(root string, opt Options, interval time.Duration) Readiness {
	r := Readiness{Plan: Plan(root, opt), Online: OnlineCPUs(root)}
	r.Saved, _ = LoadState(StatePath(root))
	if la := strings.Fields(readOr(root, "proc/loadavg")); len(la) >= 3 {
		r.Load = strings.Join(la[:3], " ")
	}
	r.Isolated = readOr(root, "sys/devices/system/cpu/isolated")
	r.NohzFull = readOr(root, "sys/devices/system/cpu/nohz_full")
	for _, w := range strings.Fields(readOr(root, "proc/cmdline")) {
		for _, k := range []string{"isolcpus=", "nohz_full=", "rcu_nocbs=", "irqaffinity="} {
			if strings.HasPrefix(w, k) {
				r.Cmdline = append(r.Cmdline, w)
			}
		}
	}
	r.SMT = map[string]string{"0": "off", "1": "on"}[readOr(root, "sys/devices/system/cpu/smt/active")]
	lo, hi := readOr(root, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq"), readOr(root, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
	if lo != "" && hi != "" {
		r.Freq = khz(lo) + " to " + khz(hi)
		if cur := readOr(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"); cur != "" {
			r.Freq += ", now " + khz(cur)
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "sys/devices/system/cpu/cpu[0-9]*/thermal_throttle/*_count"))
	for _, f := range files {
		if n, err := strconv.ParseInt(strings.TrimSpace(readFile(f)), 10, 64); err == nil {
			if r.Throttle == nil {
				r.Throttle = map[string]int64{}
			}
			r.Throttle[filepath.Base(f)] += n
		}
	}
	r.PageReporting = PageReporting(root)
	r.Busy = busy(root, interval)
	return r
}

func readOr(root, rel string) string {
	v, _ := read(root, rel)
	return v
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func khz(s string) string {
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(n/1e6, 'f', 2, 64) + " GHz"
}

// clkTck is USER_HZ, the unit of /proc/PID/stat's times (100 on every
// Linux architecture contend builds for).
const clkTck = 100

// ticks returns each process's utime+stime (in clock ticks) and name.
func ticks(root string) map[int]Proc {
	out := map[int]Proc{}
	files, _ := filepath.Glob(filepath.Join(root, "proc/[0-9]*/stat"))
	for _, f := range files {
		s := readFile(f)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		fs := strings.Fields(s[close+1:])
		if len(fs) < 13 {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
		ut, _ := strconv.ParseFloat(fs[11], 64)
		st, _ := strconv.ParseFloat(fs[12], 64)
		out[pid] = Proc{Pid: pid, Comm: s[open+1 : close], CPU: ut + st}
	}
	return out
}

// busy returns the processes that used CPU during interval (from the
// deltas of /proc/PID/stat), most first; itself not included.
func busy(root string, interval time.Duration) []Proc {
	if interval <= 0 {
		return nil
	}
	a := ticks(root)
	t0 := time.Now()
	time.Sleep(interval)
	b := ticks(root)
	secs := time.Since(t0).Seconds()
	var ps []Proc
	for pid, p := range b {
		if pid == os.Getpid() {
			continue
		}
		d := p.CPU - a[pid].CPU
		if _, ok := a[pid]; !ok || d <= 0 {
			continue
		}
		ps = append(ps, Proc{Pid: pid, Comm: p.Comm, CPU: d / clkTck / secs})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].CPU > ps[j].CPU || ps[i].CPU == ps[j].CPU && ps[i].Pid < ps[j].Pid })
	return ps
}
