// Package tune sets what makes benchmark runs steadier where the machine
// allows it (cpufreq governor, turbo, ASLR, THP, IRQ affinity, perf
// sample rate), saves the previous values on disk before changing
// anything, and puts them back on Reset, also after a crash.
//
// Every path is read under a root: "/" normally, $CONTEND_SYSROOT when
// set, so that tests run against a fake sysfs/procfs without root.
package tune

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"contend/internal/cpuset"
)

// Status is what Apply did (or Plan would do) to one setting.
type Status string

// The statuses of a setting.
const (
	StatusSet      Status = "set"
	StatusAlready  Status = "already so"
	StatusWouldSet Status = "would set"
	StatusNotAvail Status = "not available"
	StatusLeft     Status = "left as is"
	StatusRestored Status = "restored"
	StatusNotSaved Status = "nothing saved"
	StatusFailed   Status = "failed"
)

// Root returns the root under which system files are read:
// $CONTEND_SYSROOT, or "/".
func Root() string {
	if r := os.Getenv("CONTEND_SYSROOT"); r != "" {
		return r
	}
	return "/"
}

// StatePath returns the file that holds the values saved by Apply:
// $CONTEND_TUNE_STATE, else ROOT/var/lib/contend/tune.json.
func StatePath(root string) string {
	if p := os.Getenv("CONTEND_TUNE_STATE"); p != "" {
		return p
	}
	return filepath.Join(root, "var/lib/contend/tune.json")
}

// Options say what Apply sets.
type Options struct {
	// CPUs are the benchmark CPUs: IRQs are moved to the others. Empty:
	// every CPU but the first.
	CPUs []int
	// THP is the transparent huge page mode to set (always, madvise,
	// never); empty leaves it as it is.
	THP string
	// Sample is perf_event_max_sample_rate to set; 0 means 1 (the
	// lowest, as pyperf sets it).
	Sample int
}

// shown is a path relative to the root as people know it, from "/"
// ("/proc/irq/24/smp_affinity_list"): what messages print.
func shown(rel string) string {
	return "/" + rel
}

// File is one system file a setting writes, with the value it wants.
type File struct {
	Path string // relative to the root
	Want string
}

// Setting is one thing tune sets, expanded to the files it writes on
// this machine.
type Setting struct {
	Name  string // governor, turbo, aslr, thp, irq, perf
	What  string // what it is, in words
	Files []File
	// NotAvail says why the setting cannot be made here (empty: it can).
	NotAvail string
	// Note is said with the result (such as why THP was left).
	Note string
}

// Result is the outcome of one setting.
type Result struct {
	Name, What string
	Status     Status
	Detail     string // values, reasons, counts
}

func (r Result) String() string {
	s := fmt.Sprintf("%-9s %-14s", r.Name, r.Status)
	if r.Detail != "" {
		s += " " + r.Detail
	}
	return strings.TrimRight(s, " ")
}

// read returns the current value of a system file: trimmed, and for a
// choice list "a [b] c" the selected word.
func read(root, rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j], nil
		}
	}
	return s, nil
}

func write(root, rel, v string) error {
	// O_WRONLY without O_CREATE: a system file that is not there is
	// never created (under a fake root neither).
	f, err := os.OpenFile(filepath.Join(root, rel), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(v + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func exists(root, rel string) bool {
	_, err := os.Stat(filepath.Join(root, rel))
	return err == nil
}

// OnlineCPUs returns the online CPUs of the machine under root (from
// sys/devices/system/cpu/online), or nil.
func OnlineCPUs(root string) []int {
	cpus, err := cpuset.Online(root)
	if err != nil {
		return nil
	}
	return cpus
}

// Settings returns the settings of opt on the machine under root, each
// expanded to its files or saying why it is not available.
func Settings(root string, opt Options) []Setting {
	var ss []Setting

	gov := Setting{Name: "governor", What: "cpufreq governor performance"}
	govs, _ := filepath.Glob(filepath.Join(root, "sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"))
	sort.Strings(govs)
	for _, g := range govs {
		rel, _ := filepath.Rel(root, g)
		gov.Files = append(gov.Files, File{rel, "performance"})
	}
	if len(govs) == 0 {
		gov.NotAvail = "no cpufreq in /sys/devices/system/cpu/cpu*/cpufreq (a VM, or a kernel without a cpufreq driver)"
	} else if av, err := read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_available_governors"); err == nil && !contains(strings.Fields(av), "performance") {
		gov.NotAvail = "the cpufreq driver offers no performance governor (offers: " + av + ")"
		gov.Files = nil
	}
	ss = append(ss, gov)

	turbo := Setting{Name: "turbo", What: "turbo/boost off"}
	switch {
	case exists(root, "sys/devices/system/cpu/intel_pstate/no_turbo"):
		turbo.Files = []File{{"sys/devices/system/cpu/intel_pstate/no_turbo", "1"}}
	case exists(root, "sys/devices/system/cpu/cpufreq/boost"):
		turbo.Files = []File{{"sys/devices/system/cpu/cpufreq/boost", "0"}}
	default:
		turbo.NotAvail = "neither intel_pstate/no_turbo nor cpufreq/boost in /sys/devices/system/cpu (a VM, or no boost control)"
	}
	ss = append(ss, turbo)

	aslr := Setting{Name: "aslr", What: "address space randomisation off (kernel.randomize_va_space 0)"}
	if exists(root, "proc/sys/kernel/randomize_va_space") {
		aslr.Files = []File{{"proc/sys/kernel/randomize_va_space", "0"}}
	} else {
		aslr.NotAvail = "no /proc/sys/kernel/randomize_va_space"
	}
	ss = append(ss, aslr)

	thp := Setting{Name: "thp", What: "transparent huge pages as the workload wants"}
	switch {
	case !exists(root, "sys/kernel/mm/transparent_hugepage/enabled"):
		thp.NotAvail = "no /sys/kernel/mm/transparent_hugepage (a kernel without THP)"
	case opt.THP == "":
		thp.Note = "say --thp always|madvise|never for what the workload wants (faultme counts 4 KiB page faults: never)"
	default:
		thp.Files = []File{{"sys/kernel/mm/transparent_hugepage/enabled", opt.THP}}
	}
	ss = append(ss, thp)

	ss = append(ss, irqSetting(root, opt.CPUs))

	perf := Setting{Name: "perf", What: "perf_event_max_sample_rate lowest (less sampling interrupt load)"}
	rate := opt.Sample
	if rate == 0 {
		rate = 1
	}
	if exists(root, "proc/sys/kernel/perf_event_max_sample_rate") {
		perf.Files = []File{{"proc/sys/kernel/perf_event_max_sample_rate", strconv.Itoa(rate)}}
	} else {
		perf.NotAvail = "no /proc/sys/kernel/perf_event_max_sample_rate (a kernel without perf events)"
	}
	ss = append(ss, perf)
	return ss
}

// irqSetting moves every IRQ to the CPUs that are not benchmark CPUs.
func irqSetting(root string, bench []int) Setting {
	s := Setting{Name: "irq", What: "IRQs away from the benchmark CPUs"}
	online := OnlineCPUs(root)
	if len(online) < 2 {
		s.NotAvail = fmt.Sprintf("%d online CPU: nowhere else to move IRQs to", len(online))
		return s
	}
	if len(bench) == 0 {
		bench = online[1:]
	}
	var house []int
	for _, c := range online {
		if !contains(bench, c) {
			house = append(house, c)
		}
	}
	if len(house) == 0 {
		s.NotAvail = "--cpus names every online CPU: no CPU left for IRQs"
		return s
	}
	want := cpuset.Format(house)
	s.What = "IRQs to CPU " + want + ", away from benchmark CPUs " + cpuset.Format(bench)
	files, _ := filepath.Glob(filepath.Join(root, "proc/irq/[0-9]*/smp_affinity_list"))
	sort.Strings(files)
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		s.Files = append(s.Files, File{rel, want})
	}
	if len(files) == 0 {
		s.NotAvail = "no /proc/irq/*/smp_affinity_list"
	}
	if p := irqbalance(root); p != 0 {
		s.Note = fmt.Sprintf("irqbalance (pid %d) runs and may move IRQs back: stop it for the benchmark", p)
	}
	return s
}

// irqbalance returns the pid of a running irqbalance, or 0.
func irqbalance(root string) int {
	dirs, _ := filepath.Glob(filepath.Join(root, "proc/[0-9]*/comm"))
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && strings.TrimSpace(string(b)) == "irqbalance" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			return pid
		}
	}
	return 0
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// refused says why writing a system file failed, in words.
func refused(err error) string {
	switch {
	case errors.Is(err, os.ErrPermission):
		if os.Geteuid() != 0 {
			return "not root (permission denied)"
		}
		return "permission denied (read-only or locked down)"
	case errors.Is(err, os.ErrNotExist):
		return "not there"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// BenchCPUs parses --cpus (s), the benchmark CPUs: a list (cpuset.Parse) of
// CPUs online under root (every CPU up to runtime.NumCPU when root says
// nothing). Its errors are the flag's usage errors.
func BenchCPUs(root, s string) ([]int, error) {
	cpus, err := cpuset.Parse(s)
	if err != nil || len(cpus) == 0 {
		return nil, fmt.Errorf("--cpus: %q is not accepted; accepted: a list of online CPUs such as 1-3,5", s)
	}
	online := OnlineCPUs(root)
	if online == nil {
		for i := 0; i < runtime.NumCPU(); i++ {
			online = append(online, i)
		}
	}
	for _, x := range cpus {
		if !slices.Contains(online, x) {
			return nil, fmt.Errorf("--cpus: CPU %d is not online; accepted: a list of online CPUs (%s)", x, cpuset.Format(online))
		}
	}
	return cpus, nil
}
