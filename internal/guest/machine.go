// Package guest is one measurement in a fresh virtual machine, as
// 'campaign run' (a --vm campaign's boots) and 'bisect --vm' (a kernel
// search's boots) take it: the machine every guest gets and its check
// against the host (Machine), the kernel it boots (Kernel), and one boot
// measured (Measure): booted holding the machine-wide benchmark lock
// (Locked), its faults told from QEMU's own failure, the command's exit
// status (2: refused), its result file kept on the host, read back and
// its successful repetitions counted. What a failure means (a skipped
// boot, a stopped campaign, a skipped commit) is the caller's.
package guest

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"contend/internal/vm"
)

// DefaultCPUs is the vCPUs of a guest whose machine names none (fewer
// when the host has fewer).
const DefaultCPUs = 2

// Machine is the virtual machine of every guest of a campaign or a
// kernel search: vCPUs (--vm-cpus), memory in MiB (--vm-mem), the
// longest a boot may take (--vm-timeout) and the accelerator
// (--vm-accel: auto, kvm, tcg). Check fills in what is zero. Its JSON is
// a kernel search's (the timeout in nanoseconds); a campaign's plan
// writes the timeout as a duration string (campaign.VMPlan).
type Machine struct {
	CPUs    int           `json:"cpus"`
	MemMiB  int           `json:"mem_mib"`
	Timeout time.Duration `json:"timeout"`
	Accel   string        `json:"accel"`
}

// Host is what a Machine is checked against: the host's CPUs and memory
// in MiB; 0: this machine's.
type Host struct{ CPUs, MemMiB int }

// Check checks m against host (vCPUs 1 to the host's CPUs, memory
// vm.MinMemMiB to half the host's, timeout vm.MinTimeout to
// vm.MaxTimeout, a known accelerator: each refusal one line naming its
// flag and range) and returns it with the defaults filled in: DefaultCPUs
// and vm.DefaultMemMiB (fewer when the host has less), vm.DefaultTimeout,
// auto.
func (m Machine) Check(host Host) (Machine, error) {
	if host.CPUs == 0 {
		host.CPUs = runtime.NumCPU()
	}
	if host.MemMiB == 0 {
		host.MemMiB = hostMemMiB()
	}
	if m.CPUs == 0 {
		m.CPUs = min(DefaultCPUs, host.CPUs)
	}
	if m.CPUs < 1 || m.CPUs > host.CPUs {
		return m, fmt.Errorf("--vm-cpus: %d is not accepted; accepted: 1 to %d (the host's CPUs)", m.CPUs, host.CPUs)
	}
	maxMem := host.MemMiB / 2
	if m.MemMiB == 0 {
		m.MemMiB = min(vm.DefaultMemMiB, maxMem)
	}
	if m.MemMiB < vm.MinMemMiB || m.MemMiB > maxMem {
		return m, fmt.Errorf("--vm-mem: %d MiB is not accepted; accepted: %d MiB to %d MiB (half the host's memory, %d MiB)", m.MemMiB, vm.MinMemMiB, maxMem, host.MemMiB)
	}
	if m.Timeout == 0 {
		m.Timeout = vm.DefaultTimeout
	}
	if m.Timeout < vm.MinTimeout || m.Timeout > vm.MaxTimeout {
		return m, fmt.Errorf("--vm-timeout: %s is not accepted; accepted: a duration from %s to %s", m.Timeout, vm.MinTimeout, vm.MaxTimeout)
	}
	switch m.Accel {
	case "":
		m.Accel = vm.AccelAuto
	case vm.AccelAuto, vm.AccelKVM, vm.AccelTCG:
	default:
		return m, fmt.Errorf("--vm-accel: %q is not accepted; accepted: auto, kvm, tcg", m.Accel)
	}
	return m, nil
}

// hostMemMiB returns the host's memory (MemTotal) in MiB.
func hostMemMiB() int {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if w := strings.Fields(sc.Text()); len(w) >= 2 && w[0] == "MemTotal:" {
			kb, _ := strconv.Atoi(w[1])
			return kb / 1024
		}
	}
	return 0
}

// Kernel is what a guest boots: the image (a bzImage), an optional
// initrd, words added to the kernel command line, and the facts of the
// image's build when contend built it (kbuild.*: revision, config hash,
// contention options...), which every result file of its guests records.
// Its JSON is a campaign side's (campaign.Boot.VM).
type Kernel struct {
	Kernel  string            `json:"kernel"`
	Initrd  string            `json:"initrd,omitempty"`
	Cmdline string            `json:"cmdline,omitempty"`
	Build   map[string]string `json:"build,omitempty"`
}
