package bisect

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"contend/internal/esc"
	"contend/internal/guest"
	"contend/internal/kbuild"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/vm"
)

// VMDir holds the console, port and QEMU logs of each boot of a --vm
// search: DIR/vm/NNN-HASH-bK/.
const VMDir = "vm"

// VMPlan is the virtual machine of every boot of a kernel search
// (--vm) and the runs in each boot.
type VMPlan struct {
	guest.Machine
	RunsPerBoot int `json:"runs_per_boot"`
}

// The build contract of a kernel search: the build command prints, on
// its standard output, one line "kernel: PATH" (the image to boot, a
// bzImage; a relative PATH is taken in the commit's worktree, such as
// arch/x86/boot/bzImage), and optionally "initrd: PATH" and "append:
// WORDS" (added to the guest's kernel command line). Other lines are
// ignored; a later line of one key replaces an earlier one.
const (
	BuildKernel = "kernel:"
	BuildInitrd = "initrd:"
	BuildAppend = "append:"
)

// VM is the Prober of kernels: each commit is checked out in a worktree
// of its own (Work/HASH) and built there by BuildCmd, which names the
// kernel to boot on its standard output (BuildKernel...); a measurement
// of n is n boots, each a fresh guest of that kernel running Measure
// with RunsPerBoot repetitions, and its value is the boot's: the
// geometric mean of its runs (BootValue), the boot being the unit as in
// a --vm campaign. A guest that does not boot or dies (a vm.Fault other
// than QEMU's own) makes the commit a skip, with the fault's one line.
type VM struct {
	Repo     string
	Work     string // the worktrees
	Runs     string // result files, NNN-HASH-bK.json, one a boot
	Logs     string // build logs, HASH.build.log
	Consoles string // each boot's logs, NNN-HASH-bK/
	BuildCmd string
	Measure  []string
	Metric   string
	Plan     VMPlan
	// Boot boots one guest (a vm.Runner's Boot; a fake in tests).
	Boot func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error)
	// Progress, when set, is told of each boot in one line.
	Progress func(string)
	// Kernel, when set, builds each commit with internal/kbuild
	// (--kernel-tree) instead of BuildCmd; Builds is the builds' ledger
	// (BuildsFile).
	Kernel *kbuild.Options
	Builds string

	seq  int
	boot guest.BootFunc // Boot holding the benchmark lock
}

// ParseBuildOutput reads the build contract's lines from a build's
// standard output; relative paths are taken in dir. No kernel line, a
// path that is not a regular file, or a control character is an error
// (the commit is skipped).
func ParseBuildOutput(out []byte, dir string) (guest.Kernel, error) {
	var k guest.Kernel
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for _, kv := range []struct {
			key string
			dst *string
		}{{BuildKernel, &k.Kernel}, {BuildInitrd, &k.Initrd}, {BuildAppend, &k.Cmdline}} {
			if v, ok := strings.CutPrefix(line, kv.key); ok {
				*kv.dst = strings.TrimSpace(v)
			}
		}
	}
	if k.Kernel == "" {
		return k, fmt.Errorf("the build printed no %q line: a --vm build prints the image to boot, such as 'echo kernel: arch/x86/boot/bzImage'", BuildKernel+" PATH")
	}
	for _, p := range []struct {
		what string
		v    *string
	}{{"kernel", &k.Kernel}, {"initrd", &k.Initrd}} {
		if *p.v == "" {
			continue
		}
		if err := esc.Check("the build's "+p.what, *p.v); err != nil {
			return k, err
		}
		if !filepath.IsAbs(*p.v) {
			*p.v = filepath.Join(dir, *p.v)
		}
		st, err := os.Stat(*p.v)
		if err != nil || !st.Mode().IsRegular() {
			return k, fmt.Errorf("the build's %s %s is not a file", p.what, *p.v)
		}
	}
	if err := esc.Check("the build's append", k.Cmdline); err != nil {
		return k, err
	}
	return k, nil
}

type vmBuilt struct {
	p   *VM
	c   Commit
	dir string
	// k is the kernel to boot; its Build the kernel build's facts
	// (kbuild.Kernel.Env), recorded in each boot's result file, nil for
	// a --build kernel.
	k    guest.Kernel
	done bool
}

// Build makes the worktree of c, runs the build command in it and reads
// the kernel it names. A build that fails or names no bootable image is
// a *SkipError naming its log.
func (p *VM) Build(ctx context.Context, c Commit) (Built, error) {
	if p.Kernel != nil {
		return p.kernelBuild(ctx, c)
	}
	var out bytes.Buffer
	dir, logPath, err := buildAt(ctx, p.Repo, p.Work, p.Logs, p.BuildCmd, c, &out)
	if err != nil {
		return nil, err
	}
	b := &vmBuilt{p: p, c: c, dir: dir}
	k, err := ParseBuildOutput(out.Bytes(), dir)
	if err == nil {
		_, err = vm.KernelRelease(k.Kernel)
	}
	if err != nil {
		b.Close()
		return nil, &SkipError{Reason: fmt.Sprintf("%v; the build's output: %s", err, logPath)}
	}
	b.k = k
	return b, nil
}

// BootValue is the value of one boot: the geometric mean of its runs
// (the mean of their logs, as analysis.CompareBoots takes each boot),
// or their mean when one is not positive.
func BootValue(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s, pos := 0.0, true
	for _, x := range xs {
		if x <= 0 {
			pos = false
			break
		}
		s += math.Log(x)
	}
	if pos {
		return math.Exp(s / float64(len(xs)))
	}
	s = 0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Measure boots n fresh guests one after the other, each holding the
// machine-wide benchmark lock (guest.Locked, guest.Measure), and returns
// one value a boot. A fault of a guest (panic, hang, no console, death)
// or a command that fails inside is a *SkipError in one line; QEMU's own
// failure, a measurement refused as a usage error, or a missing metric
// is an error (every commit would fail the same way).
func (b *vmBuilt) Measure(ctx context.Context, n int) ([]float64, error) {
	p := b.p
	p.seq++
	tag := fmt.Sprintf("%03d-%s", p.seq, textfmt.Commit(b.c.Hash))
	for {
		if !resultExists(filepath.Join(p.Runs, tag+"-b1")) {
			break
		}
		p.seq++
		tag = fmt.Sprintf("%03d-%s", p.seq, textfmt.Commit(b.c.Hash))
	}
	args := append([]string{p.Measure[0], "--runs", strconv.Itoa(max(p.Plan.RunsPerBoot, 1)), "--out", vm.GuestOut, "--quiet"}, p.Measure[1:]...)
	if p.boot == nil {
		p.boot = guest.Locked(p.Boot, p.Progress)
	}
	var vals []float64
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%s-b%d", tag, i)
		gdir := filepath.Join(p.Consoles, name)
		if err := os.MkdirAll(gdir, 0o755); err != nil {
			return nil, err
		}
		path := filepath.Join(p.Runs, name+".jsonl")
		m, err := guest.Measure(ctx, p.boot, guest.Run{Machine: p.Plan.Machine, Kernel: b.k, Dir: gdir, File: path, Command: vm.Command{Args: args, Out: vm.GuestOut}})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, vmFailure(err, args, i, n, gdir, path)
		}
		metric := p.Metric
		if metric == "" {
			metric = m.File.Primary
		}
		if _, ok := m.File.Metric(metric); !ok {
			return nil, fmt.Errorf("the measurement has no metric %q (its metrics: %s): choose one with --metric", metric, metricNames(m.File))
		}
		xs := m.File.Values(-1, metric)
		if len(xs) == 0 {
			return nil, noRunSkip(i, n, path, m.File)
		}
		v := BootValue(xs)
		vals = append(vals, v)
		if p.Progress != nil {
			p.Progress(fmt.Sprintf("  boot %d of %d of %s: kernel %s in a VM (%s), %d runs, value %.6g; the command started %.1f s after QEMU, QEMU ended after %.1f s",
				i, n, textfmt.Commit(b.c.Hash), m.Report.Release, strings.ToUpper(m.Accel), len(xs), v, m.StartedAfter.Seconds(), m.Elapsed.Seconds()))
		}
	}
	return vals, nil
}

// vmFailure is what the search makes of boot i of n that gave no
// measurement (guest.Measure's error): a guest's fault, a command that
// failed in it or a result file without a successful run skip the
// commit (a *SkipError naming the boot's logs); a measurement refused in
// the guest (exit 2), QEMU's own failure or another error end the
// search.
func vmFailure(err error, args []string, i, n int, gdir, path string) error {
	var f *guest.Failure
	if !errors.As(err, &f) {
		return err
	}
	switch f.Kind {
	case guest.Faulted:
		var vf *vm.Fault
		kind := string(f.Kind)
		if errors.As(err, &vf) {
			kind = vf.Kind // panic, timeout, console...
		}
		return &SkipError{Reason: fmt.Sprintf("boot %d of %d: the guest did not run the measurement: %s (%s); its logs: %s", i, n, oneLine(f.Why), kind, gdir)}
	case guest.Refused:
		return fmt.Errorf("the measurement 'contend %s' was refused in the guest: %s", strings.Join(args, " "), oneLine(f.Why))
	case guest.Failed, guest.NoResult:
		why := f.Why
		if why == "" {
			why = "no result file came back"
		}
		return &SkipError{Reason: fmt.Sprintf("boot %d of %d: the measurement failed in the guest (exit %d: %s); its console: %s", i, n, f.Exit, oneLine(why), filepath.Join(gdir, "console.log"))}
	case guest.BadResult:
		return &SkipError{Reason: fmt.Sprintf("boot %d of %d: the guest's result file: %s", i, n, f.Why)}
	}
	return noRunSkip(i, n, path, f.File)
}

// noRunSkip skips the commit whose boot i of n has no successful run of
// the metric in its result file f (at path).
func noRunSkip(i, n int, path string, f *results.File) error {
	return &SkipError{Reason: fmt.Sprintf("boot %d of %d: no run succeeded (%s)%s", i, n, path, firstError(f))}
}

// oneLine is s on one line, shortened.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// Close removes the worktree (and so the kernel it built).
func (b *vmBuilt) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	if b.dir == "" {
		return nil // a kbuild image: kept in the build directory
	}
	return removeWorktree(b.p.Repo, b.dir)
}

// WhereOf says where the result files in dir were measured: "in a VM
// (TCG)" or "(KVM)" from their vm.accel, "" when not in a VM.
func WhereOf(dir string) string {
	ents, _ := os.ReadDir(dir)
	var accels []string
	for _, e := range ents {
		if !isResultName(e.Name()) {
			continue
		}
		f, err := results.Read(filepath.Join(dir, e.Name()), results.WithoutOutputs)
		if err != nil {
			continue
		}
		a := strings.ToUpper(f.Env["vm.accel"])
		if a != "" && !contains(accels, a) {
			accels = append(accels, a)
		}
	}
	if len(accels) == 0 {
		return ""
	}
	s := "in a VM (" + strings.Join(accels, ", ") + ")"
	if contains(accels, "TCG") {
		s += ": emulated, timings include the emulation"
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
