// Command collectorcost measures what the evidence collectors cost a
// workload in QEMU guests of several vCPU counts (issue 42; the table in
// docs/evidence.md): for each count it boots one guest (TCG unless
// -accel says otherwise) and runs in it, one 'contend ab' per collector,
// the workload with --a-evidence none against --b-evidence COLLECTOR,
// interleaved in a random order of each pair; it prints, per count, the
// B/A ratio of the repetitions' wall time (the Hodges-Lehmann estimate of
// the ratio, with its 95% interval). TCG inflates every time alike: compare the
// ratios, not the times. The load is printed beside the figures.
//
//	go run ./scripts/collectorcost [-cpus 2,16,64] [-n 6] [-kernel vmlinuz]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"contend/analysis"
	"contend/internal/results"
	"contend/internal/vm"
)

// collectors are the B sides: the default evidence, then each opt-in one.
var collectors = []string{"default", "lock", "offcpu", "profile"}

func main() {
	cpuList := flag.String("cpus", "2,16,64", "the guests' vCPU counts, a comma list")
	n := flag.Int("n", 6, "repetitions a side")
	kernel := flag.String("kernel", "", "the guest's kernel (default: Debian's 6.1 from scripts/e2e/kernels.sh)")
	accel := flag.String("accel", "tcg", "the accelerator: tcg, kvm or auto")
	threads := flag.Int("threads-per-cpu", 4, "mutex threads a vCPU")
	locks := flag.Int("locks", 2000, "mutex lock/unlock pairs a thread")
	flag.Parse()
	if err := run(*cpuList, *n, *kernel, *accel, *threads, *locks); err != nil {
		fmt.Fprintln(os.Stderr, "collectorcost:", err)
		os.Exit(1)
	}
}

func run(cpuList string, n int, kernel, accel string, perCPU, locks int) error {
	if kernel == "" {
		out, err := exec.Command("scripts/e2e/kernels.sh").Output()
		if err != nil {
			return fmt.Errorf("scripts/e2e/kernels.sh (run from the repository's root): %v", err)
		}
		kernel = filepath.Join(strings.TrimSpace(string(out)), "vmlinuz-a")
	}
	work, err := os.MkdirTemp("", "collectorcost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "contend")
	// Linked dynamically: the guest then gets glibc (vm.WriteInitramfs),
	// which perf needs.
	b := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "./cmd/contend")
	if out, err := b.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	r, err := vm.NewRunner(context.Background(), vm.Config{Contend: bin, Accel: accel})
	if err != nil {
		return err
	}
	defer r.Close()
	// perf for the profile, with its libraries.
	perf, libPath, err := vm.ProgramFiles("/usr/bin/perf", "/bin/perf", "/perf/lib")
	if err != nil {
		return fmt.Errorf("perf for the guest's profile (apt-get install linux-perf): %v", err)
	}
	fmt.Printf("| vCPUs | mutex threads | %s | boot and runs | load before, after |\n", strings.Join(collectors, " | "))
	fmt.Printf("|---|---|%s---|---|\n", strings.Repeat("---|", len(collectors)))
	for _, s := range strings.Split(cpuList, ",") {
		cpus, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || cpus < 1 {
			return fmt.Errorf("-cpus: %q is not a vCPU count", s)
		}
		var steps []vm.Step
		for i, c := range collectors {
			out := fmt.Sprintf("/tmp/cost-%d.jsonl", i)
			b := c
			if c == "default" {
				b = "sched,system"
			}
			steps = append(steps, vm.Step{Out: out, Args: []string{"ab", "--out", out, "-n", strconv.Itoa(n),
				"--a-evidence", "none", "--b-evidence", b, "mutex", "--threads", strconv.Itoa(perCPU * cpus), "--locks", strconv.Itoa(locks)}})
		}
		load, start := loadavg(), time.Now()
		res, err := r.Boot(context.Background(), vm.Guest{Kernel: kernel, CPUs: cpus, MemMiB: 4096, Timeout: 2 * time.Hour,
			Append: "lpj=1000000 rcupdate.rcu_cpu_stall_suppress=1 nowatchdog"},
			vm.Command{Args: steps[0].Args, Out: steps[0].Out, More: steps[1:], Files: perf, Env: []string{libPath}})
		if err != nil {
			return fmt.Errorf("%d vCPUs: %v", cpus, err)
		}
		outs := append([][]byte{res.Output}, res.More...)
		var cells []string
		for i := range collectors {
			cells = append(cells, ratio(work, i, outs))
		}
		fmt.Printf("| %d | %d | %s | %s | %s; %s |\n", cpus, perCPU*cpus, strings.Join(cells, " | "), time.Since(start).Round(time.Second), load, loadavg())
	}
	return nil
}

// ratio is the median B/A of the wall times of result file i, or why
// not.
func ratio(work string, i int, outs [][]byte) string {
	if i >= len(outs) || len(outs[i]) == 0 {
		return "no result"
	}
	p := filepath.Join(work, fmt.Sprintf("cost-%d.jsonl", i))
	if err := os.WriteFile(p, outs[i], 0o644); err != nil {
		return err.Error()
	}
	f, err := results.Read(p)
	if err != nil {
		return err.Error()
	}
	var a, b []float64
	for _, rep := range f.Reps {
		if rep.Warmup || rep.Status != results.StatusOK {
			continue
		}
		if rep.Config == 0 {
			a = append(a, rep.Metrics.Get("real"))
		} else {
			b = append(b, rep.Metrics.Get("real"))
		}
	}
	if len(a) < 2 || len(b) < 2 {
		return "no repetition"
	}
	c, err := analysis.RelativeChange(a, b, 0.95)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", 1+c.Estimate, 1+c.Lo, 1+c.Hi)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load ?"
	}
	return "load " + strings.Join(f[:3], " ")
}
