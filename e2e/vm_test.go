package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/campaign"
	"contend/internal/results"
)

// vmWorkload is what every boot of the VM campaigns runs.
var vmWorkload = []string{"run", "faultme", "--threads", "2", "--mem", "16MiB", "-n", "5"}

// TestVMCampaigns runs campaigns of virtual machines through the CLI
// ('campaign init --vm', 'campaign run', 'campaign report') on Debian's
// 6.1 kernels of one ABI (scripts/e2e/kernels.sh, cached): the generic
// kernel against the PREEMPT_RT one, 4 boots a side, must complete with
// every boot in its planned kernel (the release read inside the guest)
// and a report with the boot level; an A/A campaign (one kernel on both
// sides) must report its variance components; a kernel that panics at
// boot must stop its campaign in one line with no QEMU left; a SIGKILLed
// 'campaign run' must leave no QEMU either.
func TestVMCampaigns(t *testing.T) {
	if os.Getenv("CONTEND_E2E") != "1" {
		t.Skip("the end-to-end VM campaigns run with CONTEND_E2E=1 (make e2e): they boot Debian kernels in QEMU, minutes of CPU")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(workDir(t), "vm")
	os.MkdirAll(work, 0o755)
	kdir, k := debianKernels(t, repo)
	ka, kb := filepath.Join(kdir, "vmlinuz-a"), filepath.Join(kdir, "vmlinuz-b")
	bin := filepath.Join(work, "contend")
	if b, err := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "../cmd/contend").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	contend := func(t *testing.T, args ...string) (string, string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("contend %s: %v", strings.Join(args, " "), err)
		}
		return o.String(), e.String(), code
	}
	accel := os.Getenv("CONTEND_E2E_ACCEL")
	if accel == "" {
		accel = "auto"
	}
	// The accelerator the first campaign chose: the later ones use it
	// and skip KVM's probe.
	chosen := accel

	t.Run("rt", func(t *testing.T) {
		dir := filepath.Join(work, "rt")
		os.RemoveAll(dir)
		args := append([]string{"campaign", "init", dir, "--vm", "--vm-accel", accel, "--a-kernel", ka, "--b-kernel", kb, "--boots", "4", "--"}, vmWorkload...)
		if o, e, code := contend(t, args...); code != 0 {
			t.Fatalf("init: exit %d\n%s%s", code, o, e)
		}
		start := time.Now()
		o, e, code := contend(t, "campaign", "run", dir)
		t.Logf("campaign run: %s, %s\n%s", time.Since(start).Round(time.Second), loadavg(), o)
		if code != 0 {
			t.Fatalf("campaign run: exit %d\n%s", code, e)
		}
		if n := strings.Count(o, "vm: accelerator: "); n != 1 && accel == "auto" {
			t.Errorf("the accelerator was said %d times, want once", n)
		}
		if strings.Contains(o, "vm: accelerator: TCG") {
			chosen = "tcg"
		} else if strings.Contains(o, "vm: accelerator: KVM") {
			chosen = "kvm"
		}
		p, err := campaign.ReadPlan(dir)
		if err != nil {
			t.Fatal(err)
		}
		led, err := campaign.ReadLedger(dir)
		if err != nil {
			t.Fatal(err)
		}
		done := led.Done()
		if len(done) != 8 || p.Order != "ABBAABBA" {
			t.Fatalf("%d boots done of %s", len(done), p.Order)
		}
		ids := map[string]bool{}
		for _, e := range led.Events {
			if e.Event != campaign.EvStart || e.Kernel == nil {
				continue
			}
			want := k.A
			if p.Order[e.Slot] == 'B' {
				want = k.B
			}
			if e.Kernel.Release != want || done[e.Slot].BootID != e.BootID {
				t.Errorf("boot %d ran %s in boot %s, want %s (done in %s)", e.Slot+1, e.Kernel.Release, e.BootID, want, done[e.Slot].BootID)
			}
			ids[e.BootID] = true
			f, err := results.Read(filepath.Join(dir, done[e.Slot].Result))
			if err != nil {
				t.Fatal(err)
			}
			if f.Env["kernel.release"] != want || f.Env["kernel.boot_id"] != e.BootID || f.Env["vm.accel"] != chosen || f.Env["vm.cpus"] != "2" {
				t.Errorf("boot %d's result: release %s, boot %s, vm.accel %s, vm.cpus %s", e.Slot+1, f.Env["kernel.release"], f.Env["kernel.boot_id"], f.Env["vm.accel"], f.Env["vm.cpus"])
			}
		}
		if len(ids) != 8 {
			t.Errorf("%d distinct guest boots, want 8", len(ids))
		}
		rep, e, code := contend(t, "campaign", "report", "--full", dir)
		if code != 0 {
			t.Fatalf("report: exit %d: %s", code, e)
		}
		for _, w := range []string{"Boot level (the boot as the unit: 4+4 boots", "measured in a VM (" + strings.ToUpper(chosen), "variance components"} {
			if !strings.Contains(rep, w) {
				t.Errorf("the report lacks %q:\n%s", w, rep)
			}
		}
		t.Logf("report:\n%s", rep)
		// The brief report (the default): each side in one line, the
		// boots' warnings counted, not each boot's file and warnings.
		brief, e, code := contend(t, "campaign", "report", dir)
		if code != 0 {
			t.Fatalf("brief report: exit %d: %s", code, e)
		}
		if strings.Contains(brief, "boots/") || strings.Count(brief, ": 4 boots ") != 2 || strings.Count(brief, "running in a virtual machine") > 1 {
			t.Errorf("the brief report lists the boots' files or repeats their warnings:\n%s", brief)
		}
		t.Logf("brief report, %d lines:\n%s", strings.Count(brief, "\n"), brief)
	})

	t.Run("aa", func(t *testing.T) {
		dir := filepath.Join(work, "aa")
		os.RemoveAll(dir)
		args := append([]string{"campaign", "init", dir, "--vm", "--vm-accel", chosen, "--a-kernel", ka, "--b-kernel", ka, "--boots", "2", "--"}, vmWorkload...)
		if o, e, code := contend(t, args...); code != 0 {
			t.Fatalf("init: exit %d\n%s%s", code, o, e)
		}
		start := time.Now()
		if o, e, code := contend(t, "campaign", "run", dir); code != 0 {
			t.Fatalf("campaign run: exit %d\n%s%s", code, o, e)
		}
		t.Logf("A/A campaign run: %s", time.Since(start).Round(time.Second))
		rep, e, code := contend(t, "campaign", "report", "--full", dir)
		if code != 0 {
			t.Fatalf("report: exit %d: %s", code, e)
		}
		if !strings.Contains(rep, "variance components: within a boot SD") || !strings.Contains(rep, "2+2 boots") {
			t.Errorf("the A/A report has no variance components:\n%s", rep)
		}
	})

	t.Run("panic", func(t *testing.T) {
		dir := filepath.Join(work, "panic")
		os.RemoveAll(dir)
		args := append([]string{"campaign", "init", dir, "--vm", "--vm-accel", chosen, "--a-kernel", ka, "--a-append", "panic=1 rdinit=/nonexistent", "--b-kernel", kb, "--boots", "2", "--"}, vmWorkload...)
		if o, e, code := contend(t, args...); code != 0 {
			t.Fatalf("init: exit %d\n%s%s", code, o, e)
		}
		_, e, code := contend(t, "campaign", "run", dir)
		if code != 1 || strings.Count(strings.TrimSpace(e), "\n") != 0 || !strings.Contains(e, "boot 1 (side A): the guest's kernel panicked: Kernel panic - not syncing") {
			t.Errorf("exit %d, stderr %q: want 1 and one line naming the panic", code, e)
		}
		led, _ := campaign.ReadLedger(dir)
		if len(led.Done()) != 0 {
			t.Errorf("%d boots done after the panic", len(led.Done()))
		}
		if q := qemuOf(dir); len(q) > 0 {
			t.Errorf("QEMU left running: %v", q)
		}
	})

	t.Run("sigkill", func(t *testing.T) {
		dir := filepath.Join(work, "kill")
		os.RemoveAll(dir)
		args := append([]string{"campaign", "init", dir, "--vm", "--vm-accel", chosen, "--a-kernel", ka, "--b-kernel", kb, "--boots", "2", "--"}, vmWorkload...)
		if o, e, code := contend(t, args...); code != 0 {
			t.Fatalf("init: exit %d\n%s%s", code, o, e)
		}
		cmd := exec.Command(bin, "campaign", "run", dir)
		// The killed contend cannot remove its scratch directory (the
		// initramfs, the decompressed kernels): in the work directory.
		scratch := filepath.Join(work, "kill-tmp")
		os.MkdirAll(scratch, 0o755)
		cmd.Env = append(os.Environ(), "TMPDIR="+scratch)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Killed once its guest runs.
		deadline := time.Now().Add(2 * time.Minute)
		for len(qemuOf(dir)) == 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		q := qemuOf(dir)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if len(q) == 0 {
			t.Fatal("no guest started within 2 minutes")
		}
		for end := time.Now().Add(10 * time.Second); len(qemuOf(dir)) > 0 && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
		if left := qemuOf(dir); len(left) > 0 {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("QEMU %v outlived the SIGKILLed 'campaign run' by 10 s (killed now)", left)
		}
	})
}

// debianKernels returns the directory of Debian's two 6.1 kernels
// (vmlinuz-a generic, vmlinuz-b PREEMPT_RT: scripts/e2e/kernels.sh, which
// fetches them once) and their releases.
func debianKernels(t *testing.T, repo string) (string, kernels) {
	out, err := exec.Command(filepath.Join(repo, "scripts/e2e/kernels.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/e2e/kernels.sh: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	return dir, readKernels(t, filepath.Join(dir, "kernels.env"))
}

// readKernels reads KA and KB of a kernels.env.
func readKernels(t *testing.T, path string) kernels {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var k kernels
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "KA="); ok {
			k.A = v
		}
		if v, ok := strings.CutPrefix(sc.Text(), "KB="); ok {
			k.B = v
		}
	}
	if k.A == "" || k.B == "" {
		t.Fatalf("%s names no two kernels", path)
	}
	return k
}

// qemuOf returns the QEMU processes (not zombies) whose command line
// names dir: the guests of that campaign.
func qemuOf(dir string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid := 0
		for _, c := range e.Name() {
			if c < '0' || c > '9' {
				pid = -1
				break
			}
			pid = pid*10 + int(c-'0')
		}
		if pid <= 0 {
			continue
		}
		cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cl, []byte("qemu-system")) || !bytes.Contains(cl, []byte(dir+"/")) {
			continue
		}
		if st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); bytes.Contains(st, []byte(") Z ")) {
			continue
		}
		out = append(out, pid)
	}
	return out
}
