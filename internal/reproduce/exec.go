package reproduce

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"contend/internal/campaign"
	"contend/internal/lock"
	"contend/internal/results"
	"contend/internal/robotmail"
	"contend/internal/workload"
)

// ErrBusy is the error of a --run --no-wait that found the machine-wide
// lock held (the inner run's exit status 3).
var ErrBusy = errors.New("reproduce: another benchmark holds the machine-wide lock")

// lockPoll is how often RunAB looks at the lock while the run waits.
const lockPoll = 200 * time.Millisecond

// RunAB runs contend (exe) with args (Plan.ABArgs: the block's switch as
// an interleaved ab, or the test A/A), its own lock, evidence and file
// out, its progress and errors to log; then reads out back. The run is
// quiet (-q), so while it waits for the machine-wide lock (lockPath; ""
// none) RunAB says on log who holds it, once per holder: the lock's
// record names its pid and command. A run refused by --no-wait is
// ErrBusy.
func RunAB(exe string, args []string, out, lockPath string, log io.Writer) (*results.File, error) {
	fmt.Fprintf(log, "reproduce: contend %s\n", strings.Join(args, " "))
	log = &syncWriter{w: log} // the run's errors and the lock's lines, one at a time
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("reproduce: the run did not start: %v", err)
	}
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if lockPath != "" {
			watchLock(lockPath, cmd.Process.Pid, done, log)
		}
	}()
	err := cmd.Wait()
	close(done)
	<-watched
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		return nil, fmt.Errorf("%w (--no-wait): nothing ran; see above", ErrBusy)
	}
	if err != nil {
		return nil, fmt.Errorf("reproduce: the run failed (%v): see above; its file is %s", err, out)
	}
	return results.Read(out)
}

// syncWriter serializes the writes of the run's stderr and of watchLock.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// watchLock says on log who holds the lock at path while the run (pid)
// waits for it: once per holder other than the run, until the run holds
// it or done is closed.
func watchLock(path string, pid int, done <-chan struct{}, log io.Writer) {
	var seen lock.Holder
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	for {
		h, held := lock.Current(path)
		switch {
		case held && h.Pid == pid:
			return
		case held && h.Pid != 0 && h != seen:
			seen = h
			fmt.Fprintf(log, "reproduce: waiting: another benchmark holds %s: %s (--no-wait to refuse)\n", path, h)
		}
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
}

// KernelEnv is what the campaign of a KernelRun takes from the command
// that runs it: the campaign.Options fields of the same names, and where
// its progress goes.
type KernelEnv struct {
	Contend      string
	Workloads    []string
	Volatile     func(dir string) (fs string, volatile bool, err error)
	CheckCommand func(*campaign.Plan) error
	Log          io.Writer
}

// RunKernels makes the campaign of k (CampaignOptions), checks its
// command as the host would run it (the test at its host path) before
// anything is written, writes the plan and runs every boot in a fresh QEMU
// guest ('campaign init --vm' and 'campaign run' in one). It returns the
// campaign directory, which AnswerBoots answers from. Its refusals are
// *campaign.OptionError or usage errors; a stopped or busy campaign
// wraps campaign.ErrStopped or campaign.ErrBusy and can go on with
// 'contend campaign run DIR'.
func (p *Plan) RunKernels(ctx context.Context, k KernelRun, e KernelEnv) (string, error) {
	cr, err := p.CampaignOptions(k)
	if err != nil {
		return "", err
	}
	o := cr.Options
	o.Contend, o.Workloads, o.Volatile = e.Contend, e.Workloads, e.Volatile
	o.CheckCommand = func(cp *campaign.Plan) error {
		hp := *cp
		hp.Command = cr.HostCommand
		return e.CheckCommand(&hp)
	}
	cp, err := campaign.NewPlan(o)
	if err != nil {
		return "", err
	}
	if err := campaign.WritePlan(cp.Dir, cp); err != nil {
		return "", err
	}
	fmt.Fprintf(e.Log, "reproduce: campaign %s: %d boots (%s), %d a side (%s), each a fresh guest (%d vCPUs, %d MiB) running 'contend %s'\n",
		cp.Dir, len(cp.Order), cp.Order, cr.Boots, cr.BootsFrom, cp.VM.CPUs, cp.VM.MemMiB, strings.Join(cp.Command, " "))
	t := time.Now()
	err = campaign.RunVM(ctx, cp.Dir, campaign.RunVMOptions{Log: e.Log})
	if errors.Is(err, campaign.ErrStopped) || errors.Is(err, campaign.ErrBusy) {
		return cp.Dir, fmt.Errorf("%w (after %s; the campaign is %s: 'contend campaign run %s' goes on, 'contend campaign report %s --format lkml' answers)", err, time.Since(t).Round(time.Second), cp.Dir, cp.Dir, cp.Dir)
	}
	return cp.Dir, err
}

// KernelFlags are the flags of 'campaign init' that reproduce takes: the
// two kernels' and the guests'.
var KernelFlags = []string{"a-kernel", "a-initrd", "a-append", "b-kernel", "b-initrd", "b-append", "vm-cpus", "vm-mem", "vm-timeout", "vm-accel", "vm-skip-faults"}

// CheckKernelFlags refuses one kernel without the other, and the other
// kernel and guest flags or --boots without both; it says whether the two
// kernels are given. isSet tells whether a flag was given.
func CheckKernelFlags(isSet func(string) bool) (bool, error) {
	a, b := isSet("a-kernel"), isSet("b-kernel")
	if a != b {
		return false, workload.Usagef("--a-kernel and --b-kernel go together: give both, the base kernel and the new one (such as the robot's parent commit and the commit, built)")
	}
	if !a {
		for _, n := range append(KernelFlags, "boots") {
			if isSet(n) {
				return false, workload.Usagef("--%s goes with --a-kernel and --b-kernel (the two kernels, booted in VMs)", n)
			}
		}
	}
	return a, nil
}

// CheckPlanOnly refuses, when only the plan is printed (no --run), the
// flags that go with --run: all but the two kernels, which the plan names.
func CheckPlanOnly(isSet func(string) bool) error {
	for _, n := range append([]string{"runs", "out", "boots", "no-wait"}, KernelFlags...) {
		if isSet(n) && !strings.HasSuffix(n, "-kernel") {
			return workload.Usagef("--%s goes with --run (without it the plan is printed, naming only the kernels)", n)
		}
	}
	return nil
}

// ReadReport reads and parses the robot report at path (a mail file or
// an mbox); a report it cannot parse is a usage error naming path.
func ReadReport(path string) (*robotmail.Report, error) {
	data, err := ReadMail(path)
	if err != nil {
		return nil, err
	}
	rep, err := robotmail.Parse(data)
	if err != nil {
		return nil, workload.Usagef("reproduce %s: %v", path, err)
	}
	return rep, nil
}

// NewOptions returns the Options of --tests (default
// $CONTEND_WIS_TESTS), --duration and --noise (a result file of the test
// here, read by ReadNoise; none when empty).
func NewOptions(tests string, duration time.Duration, noise string) (Options, error) {
	if tests == "" {
		tests = os.Getenv("CONTEND_WIS_TESTS")
	}
	opt := Options{Tests: tests, Duration: duration.String()}
	if noise != "" {
		n, err := ReadNoise(noise)
		if err != nil {
			return opt, err
		}
		opt.Noise = n
	}
	return opt, nil
}

// CheckAB checks a --run of kind without kernels before it runs: a
// switch block's switch (CheckSwitch), or, for the A/A, says on log why
// the block's switch cannot run here.
func (p *Plan) CheckAB(kind RunKind, log io.Writer) error {
	if kind == RunSwitch {
		return p.CheckSwitch()
	}
	if p.SwitchWhy != "" {
		fmt.Fprintf(log, "reproduce: %s: the A/A of the test instead\n", p.SwitchWhy)
	}
	return nil
}
