package reproduce

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"contend/internal/results"
	"contend/internal/robotmail"
	"contend/internal/safefile"
	"contend/internal/workload"
)

// ThisMachine reads this machine's CPUs, cpufreq governor and kernel.
func ThisMachine() Machine {
	return Machine{CPUs: onlineCPUs(), Governor: readTrim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"), Kernel: readTrim("/proc/sys/kernel/osrelease")}
}

// ReadMail reads MAIL, refusing a symbolic link or another user's file in
// a shared directory; its errors are usage errors.
func ReadMail(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, workload.Usagef("reproduce: %s: no such file", path)
	case fi.IsDir():
		return nil, workload.Usagef("reproduce: %s is a directory, not a mail", path)
	case fi.Size() > robotmail.MaxSize:
		return nil, workload.Usagef("reproduce: %s has %d bytes: not a robot report (at most %d)", path, fi.Size(), robotmail.MaxSize)
	}
	if safefile.Shared(filepath.Dir(path)) {
		b, err := safefile.ReadFile(path, safefile.SelfOrRoot)
		if err != nil {
			return nil, workload.Usagef("reproduce: %v", err)
		}
		return b, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, workload.Usagef("reproduce: %v", err)
	}
	return b, nil
}

// ReadNoise reads the per-task ops of the first configuration of a wis
// result file (--noise); its errors are usage errors.
func ReadNoise(path string) ([]float64, error) {
	f, err := results.Read(path)
	if err != nil {
		return nil, workload.Usagef("--noise %s: %v", path, err)
	}
	if f.Workload != "wis" {
		return nil, workload.Usagef("--noise %s: a result file of %q, not of wis", path, f.Workload)
	}
	var xs []float64
	for _, r := range f.Reps {
		if r.Config == 0 && r.Status == results.StatusOK && !r.Warmup {
			if v, ok := r.Metrics.Map()["per_task_ops"]; ok {
				xs = append(xs, v)
			}
		}
	}
	if len(xs) < 3 {
		return nil, workload.Usagef("--noise %s: %d successful repetitions, at least 3 needed", path, len(xs))
	}
	return xs, nil
}

// CheckRun refuses --run where this machine cannot run plan's test: not
// a will-it-scale test, no --tests (tests is ""), or no such test there;
// its errors are usage errors.
func (p *Plan) CheckRun(rep *robotmail.Report, tests string) error {
	if p.WisArgs == nil {
		return workload.Usagef("--run: testcase %s is not a will-it-scale test: contend runs only those here", rep.Testcase)
	}
	if tests == "" {
		return workload.Usagef("--run: which will-it-scale? give --tests DIR (will-it-scale/tests, with %s.c) or set CONTEND_WIS_TESTS", p.Test)
	}
	if _, err := os.Stat(p.TestFile); err != nil {
		return workload.Usagef("--tests %s: no %s.c there", tests, p.Test)
	}
	return nil
}

// DefaultOut is the A/A run's result file where --out is not given:
// results/reproduce-COMMIT-DATE.jsonl (the directory created).
func DefaultOut(commit string, now time.Time) string {
	os.MkdirAll("results", 0o755)
	return filepath.Join("results", "reproduce-"+short(commit)+"-"+now.Format("20060102-150405")+".jsonl")
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// onlineCPUs is the CPUs in /sys/devices/system/cpu/online.
func onlineCPUs() int {
	return parseCPUList(readTrim("/sys/devices/system/cpu/online"))
}

// parseCPUList counts the CPUs of a kernel CPU list ("0-3,8"), at least 1.
func parseCPUList(list string) int {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		z := a
		if isRange {
			if z, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		n += z - a + 1
	}
	if n == 0 {
		return 1
	}
	return n
}
