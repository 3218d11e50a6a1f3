package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/campaign"
	"contend/internal/guest"
)

// fakeKernel writes a file with an x86 boot header of release r, in dir.
func fakeKernel(t *testing.T, dir, r string) string {
	t.Helper()
	b := make([]byte, 0x1000)
	copy(b[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(b[0x20e:], 0x300)
	copy(b[0x500:], r+" (test) #1 SMP\x00")
	p := filepath.Join(dir, "vmlinuz-"+r)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCampaignVMBadInput: every --vm flag validated, one line naming it
// and its range, exit 2, nothing written.
func TestCampaignVMBadInput(t *testing.T) {
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	ka, kb := fakeKernel(t, dir, "6.1.0-a"), fakeKernel(t, dir, "6.1.0-b")
	notKernel := filepath.Join(dir, "notes.txt")
	os.WriteFile(notKernel, []byte("not a kernel"), 0o644)
	ok := []string{"--vm", "--a-kernel", ka, "--b-kernel", kb}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vm-cpus", "100000"}, "--vm-cpus: 100000 is out of range; accepted: an integer from 1 to "},
		{[]string{"--vm-cpus", "0"}, "--vm-cpus"},
		{[]string{"--vm-mem", "100TiB"}, "--vm-mem: 104857600 MiB is not accepted; accepted: 256 MiB to "},
		{[]string{"--vm-mem", "128MiB"}, "--vm-mem: 128 MiB is not accepted"},
		{[]string{"--vm-mem", "1000KiB"}, `--vm-mem: "1000KiB" is not accepted; accepted: a size in whole MiB`},
		{[]string{"--vm-mem", "lots"}, "--vm-mem"},
		{[]string{"--vm-timeout", "1s"}, "--vm-timeout"},
		{[]string{"--vm-accel", "xen"}, "--vm-accel"},
		{[]string{"--settle-min", "0"}, "--settle-min: a --vm campaign does not settle"},
		{[]string{"--a-grub", "x"}, "--a-grub, --a-kexec, --a-boot-command: a --vm campaign"},
		{[]string{"--reboot-command", "reboot"}, "--reboot-command"},
		{[]string{"--a-kernel", notKernel}, "--a-kernel: " + notKernel + " is not an x86 kernel image"},
		{[]string{"--a-kernel", ka}, "--b-kernel: give side B's kernel image"},
	} {
		before := listFiles(t, dir)
		args := append([]string{"campaign", "init", "kc"}, ok...)
		if c.args[0] == "--a-kernel" {
			args = []string{"campaign", "init", "kc", "--vm", "--b-kernel", kb}
			if c.args[1] == ka {
				args = []string{"campaign", "init", "kc", "--vm"}
			}
		}
		args = append(append(args, c.args...), "--", "run", "faultme", "-n", "2")
		assertUsageError(t, runCLI(t, args...), c.want, dir, before)
	}
	before := listFiles(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vm-cpus", "1", "--a-boot-command", "true", "--a-release", "x", "--b-boot-command", "true", "--b-release", "y"}, "--vm-cpus goes with --vm"},
		{[]string{"--a-kernel", ka, "--a-release", "x", "--b-boot-command", "true", "--b-release", "y"}, "--a-kernel goes with --vm"},
	} {
		assertUsageError(t, runCLI(t, append(append([]string{"campaign", "init", "kc"}, c.args...), "--", "run", "faultme")...), c.want, dir, before)
	}
	assertUsageError(t, runCLI(t, "campaign", "run", "nowhere"), "not a campaign directory", dir, before)
	assertUsageError(t, runCLI(t, "campaign", "run"), "one campaign directory", dir, before)
}

// TestCampaignVMInit: the plan of 'campaign init --vm' (A/A allowed),
// and what it says next.
func TestCampaignVMInit(t *testing.T) {
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	k := fakeKernel(t, dir, "6.1.0-a")
	r := runCLI(t, "campaign", "init", "kc", "--vm", "--a-kernel", k, "--b-kernel", k, "--b-append", "mitigations=off",
		"--vm-cpus", "1", "--vm-mem", "512MiB", "--vm-accel", "tcg", "--vm-skip-faults", "--boots", "2", "--", "run", "faultme", "-n", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "each a fresh guest (1 vCPUs, 512 MiB, accelerator tcg)") || !strings.Contains(r.stdout, "next: 'contend campaign run ") {
		t.Errorf("stdout %q", r.stdout)
	}
	p, err := campaign.ReadPlan(filepath.Join(dir, "kc"))
	if err != nil {
		t.Fatal(err)
	}
	if p.VM == nil || *p.VM != (campaign.VMPlan{Machine: guest.Machine{CPUs: 1, MemMiB: 512, Timeout: p.VM.Timeout, Accel: "tcg"}, SkipFaults: true}) || p.Order != "ABBA" {
		t.Errorf("plan: %+v %+v", p, p.VM)
	}
	if p.Sides[1].Boot.VM == nil || p.Sides[1].Boot.VM.Cmdline != "mitigations=off" || p.Sides[0].Expect.Release != "6.1.0-a" {
		t.Errorf("sides: %+v", p.Sides)
	}
	// A step of it is refused: its boots are guests.
	if r := runCLI(t, "campaign", "step", "kc"); r.code == 0 || !strings.Contains(r.stderr, "'contend campaign run") {
		t.Errorf("step: exit %d, %q", r.code, r.stderr)
	}
}

// TestCampaignVMStatus: the status of a --vm campaign stopped by a boot
// whose guest never reported, and of one with a skipped boot: no empty
// boot id, no advice about arming.
func TestCampaignVMStatus(t *testing.T) {
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	k := fakeKernel(t, dir, "6.1.0-a")
	if r := runCLI(t, "campaign", "init", "kc", "--vm", "--a-kernel", k, "--b-kernel", k, "--boots", "2", "--", "run", "faultme", "-n", "2"); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	kc := filepath.Join(dir, "kc")
	campaign.Append(kc, campaign.Event{Event: campaign.EvSkipped, Slot: 0, Side: "A", Message: "boot 1 (side A): the guest's kernel panicked: X; skipped (--vm-skip-faults)"})
	campaign.Append(kc, campaign.Event{Event: campaign.EvFailed, Slot: 1, Side: "B", Message: "boot 2 (side B): the guest's kernel panicked: Y"})
	r := runCLI(t, "campaign", "status", "kc")
	for _, w := range []string{"boot 1  A  skipped (a fault, --vm-skip-faults): boot 1 (side A)", "boot 2  B  stopped (failed)\n", "'contend campaign run " + kc + "' goes on from boot 2", "-> boot 2"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("status lacks %q:\n%s", w, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "arm") {
		t.Errorf("status of a --vm campaign speaks of arming:\n%s", r.stdout)
	}
}
