// Package vm boots a kernel in a fresh QEMU guest whose userspace
// contend builds itself, runs one contend command inside and brings its
// result file back: the guest's root is an initramfs (a newc archive
// written here) holding the contend binary as /init and the shared
// libraries it links; the result returns over the second 8250 serial port
// (ttyS1, built into every x86 distribution kernel and defconfig), framed
// and checksummed; the console (ttyS0) goes to a host file. KVM when it
// boots a kernel, TCG otherwise. Every QEMU runs in a process group of
// its own and dies with contend (PR_SET_PDEATHSIG), also after a SIGKILL.
package vm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"contend/internal/esc"
	"contend/internal/tmpdir"
)

// Defaults and ranges of a guest.
const (
	DefaultMemMiB  = 1024
	MinMemMiB      = 256
	DefaultTimeout = 10 * time.Minute
	MinTimeout     = 10 * time.Second
	MaxTimeout     = 24 * time.Hour
	// DefaultKVMProbe is how long a guest under KVM may take to show
	// the kernel's banner on its console before KVM counts as hanging
	// (nested KVM on some hosts hangs right after the decompressor);
	// under KVM the banner comes within a second or two.
	DefaultKVMProbe = 15 * time.Second
	// GuestOut is where the command's result file is written in the
	// guest.
	GuestOut = "/tmp/contend-result.json"
	// maxCmdline is the x86 kernel's command line size (COMMAND_LINE_SIZE).
	maxCmdline = 2047
)

// Accelerators.
const (
	AccelAuto = "auto"
	AccelKVM  = "kvm"
	AccelTCG  = "tcg"
)

// Config configures a Runner; zero fields take the defaults.
type Config struct {
	QEMU      string        // the QEMU binary (default qemu-system-x86_64)
	Accel     string        // auto (default), kvm or tcg
	KVMDevice string        // default /dev/kvm
	KVMProbe  time.Duration // default DefaultKVMProbe
	Contend   string        // the binary put in the guest (default os.Executable)
	// Log gets the one line that says which accelerator was chosen
	// and why, and one per kernel on how it is booted (default:
	// discarded).
	Log io.Writer
	// NoPVH boots the bzImage as it is, never its ELF kernel (pvh.go).
	NoPVH bool
	// HostCPUs is the CPUs QEMU's threads may run on, which choose
	// TCG's thread mode (TCGThreads); default: this process's
	// affinity mask's.
	HostCPUs int
}

// Guest is one virtual machine: the kernel image (a bzImage), an
// optional initrd of the user's, unpacked before contend's own (its
// /init is replaced), words added to the kernel command line, vCPUs,
// memory and the timeout of the whole boot. Dir receives the boot's
// console.log (ttyS0), port.log (ttyS1) and qemu.log (QEMU's own
// output); empty: a temporary directory, removed.
type Guest struct {
	Kernel  string
	Initrd  string
	Append  string
	CPUs    int // default 1
	MemMiB  int // default DefaultMemMiB
	Timeout time.Duration
	Dir     string
}

// Command is the contend command a guest runs: Args without the program
// name, writing its result file to Out in the guest (such as GuestOut);
// empty Out: no result file is brought back.
type Command struct {
	Args []string
	Out  string
	// Files are put into the guest's root before the command runs (a
	// will-it-scale test and its objects compiled on the host); Env are
	// NAME=VALUE words added to the command's environment.
	Files []File
	Env   []string
	// Facts are environment entries the command's result file records
	// beside the vm.* ones (the kernel's build: kbuild.*, from
	// internal/kbuild's Kernel.Env); the guest's contend keeps vm.* and
	// kbuild.* keys (internal/env).
	Facts map[string]string
	// More are contend commands run after Args in the same boot, each
	// with its own result file brought back (Result.More), whatever the
	// exit of the ones before (a large guest's boot takes minutes under
	// TCG: e2e's TestLargeGuest runs every workload in one).
	More []Step
}

// Step is one more contend command of a boot: Args without the program
// name, writing its result file to Out in the guest (empty: none comes
// back).
type Step struct {
	Args []string `json:"args"`
	Out  string   `json:"out,omitempty"`
}

// File is a file of the host (Host) put into the guest at Guest, an
// absolute path outside what the guest's init mounts or owns.
type File struct{ Host, Guest string }

// Result is what one boot brought back.
type Result struct {
	Accel   string // kvm or tcg
	TCG     string // TCG's thread mode, multi or single ("" under KVM)
	QEMU    string // QEMU's version
	CPUs    int
	MemMiB  int
	HostCPU string
	// Report is the guest's own account: kernel release, version,
	// command line and boot id read inside, the command's exit status.
	Report Report
	// Output is the result file (nil: none came back).
	Output []byte
	// More are the result files of Command.More, in order (nil: none
	// came back); their exit statuses are Report.More.
	More [][]byte
	// StartedAfter is the time from QEMU's start to the command's
	// start in the guest (as the host saw the guest say so); Elapsed
	// to QEMU's end.
	StartedAfter, Elapsed time.Duration
	// Console is the path of the console log (empty when Guest.Dir was).
	Console string
}

// Env returns the facts about the virtual machine every result file of
// it records (keys vm.*).
func (r *Result) Env() map[string]string {
	return vmEnv(r.Accel, r.TCG, r.QEMU, r.CPUs, r.MemMiB, r.HostCPU)
}

func vmEnv(accel, tcg, qemu string, cpus, mem int, host string) map[string]string {
	e := map[string]string{
		"vm.accel":    accel,
		"vm.cpus":     strconv.Itoa(cpus),
		"vm.mem":      fmt.Sprintf("%d MiB", mem),
		"vm.qemu":     qemu,
		"vm.host_cpu": host,
	}
	if accel == AccelTCG {
		e["vm.timing"] = "emulated (TCG): timings include the emulation"
		e["vm.tcg"] = tcg
	}
	return e
}

// Fault kinds.
const (
	FaultQEMU     = "qemu"     // missing, too old, or failed to start
	FaultPanic    = "panic"    // the kernel panicked
	FaultTimeout  = "timeout"  // the boot did not end in time (a hang)
	FaultConsole  = "console"  // nothing on ttyS0: no serial console, or not a kernel
	FaultDied     = "died"     // the guest ended during the command
	FaultNoReport = "noreport" // the guest ended without its report
	FaultTransfer = "transfer" // a frame arrived damaged
)

// Fault is a boot that went wrong, in one line.
type Fault struct {
	Kind string
	Msg  string
}

func (f *Fault) Error() string { return f.Msg }

// Runner boots guests: it checks QEMU once, builds contend's initramfs
// once, and chooses the accelerator at the first boot (and says so once).
type Runner struct {
	cfg     Config
	version string
	host    string
	dir     string // the runner's scratch directory
	td      *tmpdir.Dir
	base    string // contend's initramfs

	mu    sync.Mutex
	accel string            // chosen: kvm or tcg; "" not yet
	entry map[string]string // a kernel image's ELF kernel with a PVH entry ("": none)
}

// NewRunner checks QEMU (present, MinQEMU or newer) and builds the
// initramfs. Close removes it.
func NewRunner(ctx context.Context, cfg Config) (*Runner, error) {
	if cfg.QEMU == "" {
		cfg.QEMU = "qemu-system-x86_64"
	}
	switch cfg.Accel {
	case "":
		cfg.Accel = AccelAuto
	case AccelAuto, AccelKVM, AccelTCG:
	default:
		return nil, fmt.Errorf("vm: accelerator %q; accepted: auto, kvm, tcg", cfg.Accel)
	}
	if cfg.KVMDevice == "" {
		cfg.KVMDevice = "/dev/kvm"
	}
	if cfg.KVMProbe <= 0 {
		cfg.KVMProbe = DefaultKVMProbe
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.HostCPUs <= 0 {
		cfg.HostCPUs = runtime.NumCPU()
	}
	if cfg.Contend == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Contend = exe
	}
	v, err := qemuVersion(ctx, cfg.QEMU)
	if err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, version: v, host: hostCPU(), entry: map[string]string{}}
	if cfg.Accel != AccelAuto {
		r.accel = cfg.Accel
	}
	if r.td, err = tmpdir.New(tmpdir.VM, ""); err != nil {
		return nil, err
	}
	r.dir = r.td.Path
	r.base = filepath.Join(r.dir, "initramfs.cpio")
	f, err := os.Create(r.base)
	if err == nil {
		_, err = WriteInitramfs(f, cfg.Contend)
		if e := f.Close(); err == nil {
			err = e
		}
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("vm: building the guest's initramfs from %s: %w", cfg.Contend, err)
	}
	return r, nil
}

// Close removes the runner's files.
func (r *Runner) Close() error { return r.td.Close() }

// Accel returns the accelerator chosen ("" before the first boot of
// auto).
func (r *Runner) Accel() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.accel
}

// errKVMHang is a KVM guest that showed no kernel banner in time.
var errKVMHang = errors.New("no kernel banner under KVM")

// Boot boots guest g, runs c in it and returns what came back. A boot
// that went wrong is a *Fault (its text one line); the command's own
// failure inside is not: Result.Report.Exit says it.
func (r *Runner) Boot(ctx context.Context, g Guest, c Command) (*Result, error) {
	if g.CPUs <= 0 {
		g.CPUs = 1
	}
	if g.MemMiB <= 0 {
		g.MemMiB = DefaultMemMiB
	}
	if g.Timeout <= 0 {
		g.Timeout = DefaultTimeout
	}
	if _, err := KernelVersion(g.Kernel); err != nil {
		return nil, &Fault{Kind: FaultConsole, Msg: err.Error()}
	}
	if !r.cfg.NoPVH {
		g.Kernel = r.bootable(g.Kernel)
	}
	if g.Dir == "" {
		d, err := os.MkdirTemp(r.dir, "boot-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		g.Dir = d
	}
	accel := r.Accel()
	if accel == "" {
		// auto, not yet chosen.
		why := ""
		if f, err := os.OpenFile(r.cfg.KVMDevice, os.O_RDWR, 0); err != nil {
			why = fmt.Sprintf("%v", err)
		} else {
			f.Close()
			res, err := r.boot(ctx, g, c, AccelKVM, r.cfg.KVMProbe)
			if !errors.Is(err, errKVMHang) {
				r.choose(AccelKVM, "KVM (it boots the kernel)")
				return res, err
			}
			why = fmt.Sprintf("%s opens, but a guest showed no kernel banner within %s (%v; nested KVM hangs right after the decompressor on some hosts)", r.cfg.KVMDevice, r.cfg.KVMProbe, err)
		}
		r.choose(AccelTCG, "TCG, emulated: timings include the emulation ("+why+")")
		accel = AccelTCG
	}
	return r.boot(ctx, g, c, accel, 0)
}

// bootable returns what QEMU boots for kernel image k: its ELF kernel
// with a PVH entry when it has one (decompressed once), else k; it says
// which, once per image.
func (r *Runner) bootable(k string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entry[k]; ok {
		if e == "" {
			return k
		}
		return e
	}
	e, err := pvhKernel(k, r.dir)
	if err != nil {
		fmt.Fprintf(r.cfg.Log, "vm: %s: booted as a bzImage, its decompressor in the guest (no PVH kernel: %v)\n", k, err)
		r.entry[k] = ""
		return k
	}
	fmt.Fprintf(r.cfg.Log, "vm: %s: its kernel decompressed on the host and booted through its PVH entry (no decompressor in the guest)\n", k)
	r.entry[k] = e
	return e
}

// choose records the accelerator and says so, once.
func (r *Runner) choose(accel, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.accel == "" {
		r.accel = accel
		fmt.Fprintf(r.cfg.Log, "vm: accelerator: %s\n", why)
	}
}

// kernelBanner is the kernel's first console line.
var kernelBanner = []byte("Linux version ")

// boot runs one guest under accel. probe > 0: a guest whose console
// shows no kernel banner within probe (or that ends before) is killed and
// errKVMHang returned.
func (r *Runner) boot(ctx context.Context, g Guest, c Command, accel string, probe time.Duration) (*Result, error) {
	res := &Result{Accel: accel, QEMU: r.version, CPUs: g.CPUs, MemMiB: g.MemMiB, HostCPU: r.host}
	if accel == AccelTCG {
		res.TCG = TCGThreads(g.CPUs, r.cfg.HostCPUs)
	}
	console, port, qlog, initrd := filepath.Join(g.Dir, "console.log"), filepath.Join(g.Dir, "port.log"), filepath.Join(g.Dir, "qemu.log"), filepath.Join(g.Dir, "initrd.img")
	for _, p := range []string{console, port, qlog} {
		os.Remove(p)
	}
	facts := res.Env()
	for k, v := range c.Facts {
		facts[k] = v
	}
	job, err := json.Marshal(Job{Args: c.Args, Out: c.Out, Env: facts, Vars: c.Env, More: c.More})
	if err != nil {
		return nil, err
	}
	if err := r.writeInitrd(initrd, g.Initrd, job, c.Files); err != nil {
		return nil, err
	}
	defer os.Remove(initrd)
	// no_timer_check: under TCG on a loaded host the kernel's check of
	// the IO-APIC timer can miss its ticks and panic ("IO-APIC + timer
	// doesn't work!", seen in a kernel bisect at load 15-25); the timer
	// works, the check is what emulation makes flaky.
	cmdline := strings.TrimSpace("console=ttyS0 panic=-1 no_timer_check " + g.Append)
	if len(cmdline) > maxCmdline {
		return nil, &Fault{Kind: FaultConsole, Msg: fmt.Sprintf("the kernel command line is %d bytes; the kernel takes %d", len(cmdline), maxCmdline)}
	}
	args := qemuArgs(accel, res.TCG, g.CPUs, g.MemMiB, g.Kernel, initrd, cmdline, console, port)
	start := time.Now()
	p, err := StartProcess(r.cfg.QEMU, args, qlog)
	if err != nil {
		return nil, &Fault{Kind: FaultQEMU, Msg: fmt.Sprintf("QEMU did not start: %v", err)}
	}
	if g.Dir != "" {
		res.Console = console
	}
	deadline := time.NewTimer(g.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	banner := false
	timedOut := false
wait:
	for {
		select {
		case <-p.done:
			break wait
		case <-ctx.Done():
			p.Kill()
			return nil, fmt.Errorf("vm: the boot was stopped: %w", ctx.Err())
		case <-deadline.C:
			p.Kill()
			timedOut = true
			break wait
		case <-tick.C:
		}
		if !banner {
			b, _ := os.ReadFile(console)
			banner = bytes.Contains(b, kernelBanner)
			if !banner && probe > 0 && time.Since(start) > probe {
				p.Kill()
				return nil, errKVMHang
			}
		}
		if res.StartedAfter == 0 {
			if b, _ := os.ReadFile(port); bytes.Contains(b, []byte(frameBegin+" "+frameStarted+" ")) {
				res.StartedAfter = time.Since(start)
			}
		}
	}
	res.Elapsed = time.Since(start)
	if res.StartedAfter == 0 {
		if b, _ := os.ReadFile(port); bytes.Contains(b, []byte(frameBegin+" "+frameStarted+" ")) {
			res.StartedAfter = res.Elapsed
		}
	}
	cons, _ := os.ReadFile(console)
	if probe > 0 && !bytes.Contains(cons, kernelBanner) {
		return nil, fmt.Errorf("%w: QEMU ended (%v): %s", errKVMHang, p.err, lastLine(qlog))
	}
	return res, r.verdict(res, cons, port, qlog, p.err, timedOut, g)
}

// verdict reads what a finished guest left: its frames, else the reason
// it has none, in one line.
func (r *Runner) verdict(res *Result, cons []byte, port, qlog string, exit error, timedOut bool, g Guest) error {
	pb, _ := os.ReadFile(port)
	frames, ferr := ReadFrames(bytes.NewReader(pb))
	_, started := frames[frameStarted]
	where := ""
	if g.Dir != "" {
		where = " (console: " + filepath.Join(g.Dir, "console.log") + ")"
	}
	if panicLine := findLine(cons, "Kernel panic"); panicLine != "" {
		return &Fault{Kind: FaultPanic, Msg: "the guest's kernel panicked: " + panicLine + where}
	}
	if timedOut {
		stage := "before the command started"
		if started {
			stage = "during the command"
		}
		last := lastConsoleLine(cons)
		return &Fault{Kind: FaultTimeout, Msg: fmt.Sprintf("the guest did not end within %s (%s; a hang?): QEMU killed; its last console line: %q%s", g.Timeout, stage, last, where)}
	}
	if !bytes.Contains(cons, kernelBanner) {
		if exit != nil {
			return &Fault{Kind: FaultQEMU, Msg: fmt.Sprintf("QEMU failed (%v): %s", exit, lastLine(qlog))}
		}
		return &Fault{Kind: FaultConsole, Msg: fmt.Sprintf("the kernel %s wrote nothing to the serial console ttyS0: it needs the 8250 serial port and its console built in (CONFIG_SERIAL_8250=y, CONFIG_SERIAL_8250_CONSOLE=y)%s", g.Kernel, where)}
	}
	if ferr != nil {
		return &Fault{Kind: FaultTransfer, Msg: ferr.Error() + where}
	}
	rb, ok := frames[frameReport]
	if !ok {
		why := "QEMU exited by itself"
		if exit != nil {
			why = fmt.Sprintf("QEMU ended: %v", exit)
		}
		if started {
			return &Fault{Kind: FaultDied, Msg: fmt.Sprintf("the guest died during the command (%s) without its report%s", why, where)}
		}
		msg := fmt.Sprintf("the guest booted, but contend's init sent nothing over ttyS1 (%s)", why)
		if l := findLine(cons, "contend-init: "); l != "" {
			msg += ": " + l
		} else if l := lastConsoleLine(cons); l != "" {
			msg += "; its last console line: " + strconv.Quote(l)
		}
		return &Fault{Kind: FaultNoReport, Msg: msg + where}
	}
	if err := json.Unmarshal(rb, &res.Report); err != nil {
		return &Fault{Kind: FaultTransfer, Msg: fmt.Sprintf("the guest's report is not JSON: %v", err)}
	}
	res.Output = frames[frameResult]
	for i := range res.Report.More {
		res.More = append(res.More, frames[moreFrame(i)])
	}
	return nil
}

// writeInitrd writes the boot's initrd: the user's (padded to 4 bytes),
// contend's initramfs, the job and its files.
func (r *Runner) writeInitrd(path, user string, job []byte, files []File) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	var n int64
	if user != "" {
		in, err := os.Open(user)
		if err != nil {
			return err
		}
		n, err = io.Copy(out, in)
		in.Close()
		if err != nil {
			return err
		}
		if pad := (4 - n%4) % 4; pad != 0 {
			out.Write(make([]byte, pad))
		}
	}
	in, err := os.Open(r.base)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	in.Close()
	if err != nil {
		return err
	}
	if err := writeJob(out, job, files); err != nil {
		return err
	}
	return out.Close()
}

// findLine returns the first console line holding s, escaped.
func findLine(b []byte, s string) string {
	i := bytes.Index(b, []byte(s))
	if i < 0 {
		return ""
	}
	line := b[i:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return esc.Line(strings.TrimSpace(string(line)))
}

// lastConsoleLine returns the last non-empty line of a console log,
// escaped.
func lastConsoleLine(b []byte) string {
	lines := strings.Split(strings.ReplaceAll(string(b), "\r", ""), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return esc.Line(l)
		}
	}
	return ""
}

// lastLine returns the last line of a file, escaped ("" when none).
func lastLine(path string) string {
	b, _ := os.ReadFile(path)
	if l := lastConsoleLine(b); l != "" {
		return l
	}
	return "(no output)"
}
