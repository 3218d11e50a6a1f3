package vm

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"contend/internal/lazyre"
)

// MinQEMU is the oldest QEMU Boot uses (-accel with thread=multi,
// -nodefaults and file serial ports as used here).
var MinQEMU = [2]int{4, 2}

var qemuVersionRE = lazyre.New(`version (\d+)\.(\d+)(\.\d+)?`)

// qemuVersion runs 'qemu -version' and returns the version ("7.2.22"),
// refusing a QEMU older than MinQEMU or one that cannot be run.
func qemuVersion(ctx context.Context, qemu string) (string, error) {
	path, err := exec.LookPath(qemu)
	if err != nil {
		return "", &Fault{Kind: FaultQEMU, Msg: fmt.Sprintf("QEMU is missing: %s not found (install qemu-system-x86, or give its path)", qemu)}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-version").Output()
	if err != nil {
		return "", &Fault{Kind: FaultQEMU, Msg: fmt.Sprintf("QEMU %s does not run: '%s -version' failed (%v)", path, path, err)}
	}
	m := qemuVersionRE().FindStringSubmatch(string(out))
	if m == nil {
		return "", &Fault{Kind: FaultQEMU, Msg: fmt.Sprintf("QEMU %s: '-version' says no version (%q)", path, firstLine(string(out)))}
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < MinQEMU[0] || major == MinQEMU[0] && minor < MinQEMU[1] {
		return "", &Fault{Kind: FaultQEMU, Msg: fmt.Sprintf("QEMU %s is too old: version %s.%s%s; %d.%d or newer is needed", path, m[1], m[2], m[3], MinQEMU[0], MinQEMU[1])}
	}
	return m[1] + "." + m[2] + m[3], nil
}

// TCG's thread modes (-accel tcg,thread=MODE).
const (
	TCGMulti  = "multi"  // a host thread a vCPU (MTTCG)
	TCGSingle = "single" // one host thread runs the vCPUs in turn
)

// TCGThreads returns the TCG thread mode of a guest of cpus vCPUs on a
// host whose QEMU may run on hostCPUs CPUs: multi while every vCPU can
// have a host CPU of its own, single when they would outnumber them.
// Multi-threaded with more vCPU threads than CPUs, the host preempts a
// vCPU that holds a guest spinlock and the vCPUs waiting for it spin for
// whole host timeslices: TCG has no paravirtual spinlocks, so 64 vCPUs
// on 2 CPUs did not finish a 4,096-thread mutex repetition in 16
// minutes. Single-threaded, a vCPU that spins executes PAUSE, which TCG
// ends its turn on ("let another CPU run"), so the holder runs next: the
// same guest ran its mutex repetitions in 6 s (docs/vm.md).
func TCGThreads(cpus, hostCPUs int) string {
	if cpus > hostCPUs {
		return TCGSingle
	}
	return TCGMulti
}

// qemuArgs returns the arguments of a guest under accelerator accel
// ("kvm" or "tcg", with TCG thread mode tcg): kernel, initrd and command
// line, the serial ports ttyS0 (the console) into console and ttyS1 (the
// frames) into port, no devices besides, and no reboot (the guest's reset
// or a panic ends QEMU).
func qemuArgs(accel, tcg string, cpus, memMiB int, kernel, initrd, cmdline, console, port string) []string {
	a := []string{"-accel", "tcg,thread=" + tcg}
	if accel == "kvm" {
		a = []string{"-accel", "kvm", "-cpu", "host"}
	}
	return append(a, "-smp", strconv.Itoa(cpus), "-m", strconv.Itoa(memMiB), "-nodefaults", "-no-user-config",
		"-display", "none", "-no-reboot", "-serial", "file:"+console, "-serial", "file:"+port,
		"-kernel", kernel, "-initrd", initrd, "-append", cmdline)
}

// Process is one QEMU process in a process group of its own. It dies
// with contend: PR_SET_PDEATHSIG (SIGKILL) is set by the thread that
// forks, and Linux sends it when that thread ends (not the process), so
// the goroutine that starts QEMU keeps its thread locked until QEMU is
// waited for.
type Process struct {
	pid  int
	done chan struct{} // closed when QEMU has been waited for
	err  error         // its exit, after done
}

// StartProcess starts qemu (a QEMU binary) with args, its output into
// the file out.
func StartProcess(qemu string, args []string, out string) (*Process, error) {
	f, err := os.Create(out)
	if err != nil {
		return nil, err
	}
	p := &Process{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Locked and never unlocked: the thread ends with this
		// goroutine, after QEMU is waited for.
		runtime.LockOSThread()
		defer close(p.done)
		defer f.Close()
		cmd := exec.Command(qemu, args...)
		cmd.Stdout, cmd.Stderr = f, f
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		p.err = cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// Done is closed when QEMU has ended and been waited for.
func (p *Process) Done() <-chan struct{} { return p.done }

// Kill kills QEMU's process group and waits for QEMU.
func (p *Process) Kill() {
	syscall.Kill(-p.pid, syscall.SIGKILL)
	<-p.done
}

// hostCPU returns the host's CPU model (/proc/cpuinfo).
func hostCPU() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
