package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"contend/internal/vm"
)

// qemu is one QEMU process (vm.Process: a process group of its own,
// PR_SET_PDEATHSIG from a locked thread, so that it dies with the test
// binary, also when a 'go test -timeout' panic runs no cleanup), killed
// with its group when the test ends (t.Cleanup).
type qemu struct{ *vm.Process }

// startQEMU starts qemu-system-x86_64 with args, its own output into
// out.
func startQEMU(t *testing.T, args []string, out string) *qemu {
	t.Helper()
	p, err := vm.StartProcess("qemu-system-x86_64", args, out)
	if err != nil {
		t.Fatalf("cannot start qemu-system-x86_64: %v", err)
	}
	t.Cleanup(p.Kill)
	return &qemu{p}
}

// bootLine is the kernel's banner, once per boot, with the release.
var bootLine = regexp.MustCompile(`\] Linux version (\S+) `)

// bootKernels returns the release of every boot in a console log, in
// order.
func bootKernels(console []byte) []string {
	var out []string
	for _, m := range bootLine.FindAllSubmatch(console, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// await waits for QEMU to exit by itself (the guest powers off), watching
// the console log: more than maxBoots boots (a reboot loop) or a boot
// that lasts longer than perBoot kill it with an error.
func (q *qemu) await(console string, maxBoots int, perBoot time.Duration) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	boots, since := 0, time.Now()
	for {
		select {
		case <-q.Done():
			return nil
		case <-tick.C:
		}
		b, _ := os.ReadFile(console)
		if n := len(bootLine.FindAllIndex(b, -1)); n > boots {
			boots, since = n, time.Now()
		}
		if boots > maxBoots {
			q.Kill()
			return fmt.Errorf("boot %d started, but the plan has %d boots: killed (a reboot loop?)", boots, maxBoots)
		}
		if time.Since(since) > perBoot {
			q.Kill()
			return fmt.Errorf("boot %d did not end within %s (CONTEND_E2E_BOOT_TIMEOUT): QEMU killed", boots, perBoot)
		}
	}
}

// qemuArgs returns the arguments that boot kernel and initrd with the
// command line cmdline and the root file system img (/dev/vda), 2 vCPUs,
// the serial console into console, and no reboot (a reset ends QEMU; a kexec is not a reset).
func qemuArgs(accel, img, kernel, initrd, cmdline, console string) []string {
	a := []string{"-accel", "tcg,thread=multi"}
	if accel == "kvm" {
		a = []string{"-accel", "kvm"}
	}
	a = append(a, "-smp", "2", "-m", "1024", "-nodefaults", "-display", "none", "-no-reboot",
		"-serial", "file:"+console, "-kernel", kernel, "-append", cmdline)
	if initrd != "" {
		a = append(a, "-initrd", initrd)
	}
	if img != "" {
		a = append(a, "-drive", "file="+img+",format=raw,if=virtio")
	}
	return a
}

// kvmProbe is how long a kernel under KVM may take to panic for want of a
// root file system: under KVM that takes a second or two, under TCG
// about 5 s; nested KVM on the development VMs hangs after the
// decompressor.
const kvmProbe = 20 * time.Second

// chooseAccel returns "kvm" when KVM boots kernel to its panic (no root
// file system) within kvmProbe, else "tcg", and says why.
// CONTEND_E2E_ACCEL=tcg or kvm decides instead.
func chooseAccel(t *testing.T, kernel, work string) string {
	t.Helper()
	switch v := os.Getenv("CONTEND_E2E_ACCEL"); v {
	case "tcg", "kvm":
		t.Logf("accelerator: %s (CONTEND_E2E_ACCEL)", v)
		return v
	case "":
	default:
		t.Fatalf("CONTEND_E2E_ACCEL: %q is not accepted; accepted: tcg, kvm (unset: kvm when it boots a kernel within %s, else tcg)", v, kvmProbe)
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		t.Logf("accelerator: tcg (%v)", err)
		return "tcg"
	}
	f.Close()
	console := filepath.Join(work, "kvm-probe.console")
	args := qemuArgs("kvm", "", kernel, "", "console=ttyS0 panic=-1 root=/dev/nonexistent", console)
	q := startQEMU(t, args, filepath.Join(work, "kvm-probe.out"))
	select {
	case <-q.Done():
	case <-time.After(kvmProbe):
		q.Kill()
	}
	if b, _ := os.ReadFile(console); bytes.Contains(b, []byte("Kernel panic")) {
		t.Logf("accelerator: kvm (it booted a kernel to its panic for want of a root file system)")
		return "kvm"
	}
	t.Logf("accelerator: tcg (KVM did not bring a kernel to its panic within %s: nested KVM hangs after the decompressor on some hosts)", kvmProbe)
	return "tcg"
}
