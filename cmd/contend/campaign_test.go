package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/campaign"
	"contend/internal/env"
	"contend/internal/results"
)

// The boot id and kernel seen by a test binary running as contend come
// from these variables. They are read here, in a _test.go file, so the
// contend binary itself never reads them.
func init() {
	k := env.Kernel{
		BootID:  os.Getenv("CONTEND_TEST_BOOT_ID"),
		Release: os.Getenv("CONTEND_TEST_KERNEL_RELEASE"),
	}
	if k != (env.Kernel{}) {
		env.OverrideForTest(&k)
	}
}

// campaignFixture is a campaign of two fake kernels, kA and kB, booted by
// a fake reboot command that appends "SLOT SIDE" to reboots.log.
type campaignFixture struct {
	t        *testing.T
	root     string
	dir      string
	rebootLg string
}

func newCampaign(t *testing.T, command ...string) *campaignFixture {
	t.Helper()
	root := chdirTemp(t)
	allowVolatileTemp(t, root)
	f := &campaignFixture{t: t, root: root, dir: filepath.Join(root, "kc"), rebootLg: filepath.Join(root, "reboots.log")}
	fake := `echo "$CONTEND_CAMPAIGN_SLOT $CONTEND_CAMPAIGN_SIDE" >> ` + f.rebootLg
	args := []string{"campaign", "init", f.dir, "--boots", "3",
		"--a-boot-command", fake, "--a-release", "kA",
		"--b-boot-command", fake, "--b-release", "kB",
		"--settle-min", "0", "--settle-max", "0s", "--settle-load", "1000", "--settle-psi", "100", "--"}
	if r := runCLI(t, append(args, command...)...); r.code != 0 {
		t.Fatalf("campaign init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return f
}

// step runs 'contend campaign step' in a process of its own, in boot id
// with kernel release.
func (f *campaignFixture) step(boot, release string, extra ...string) (string, int) {
	f.t.Helper()
	cmd := contendCmd(f.t, append(append([]string{"campaign", "step"}, extra...), f.dir)...)
	cmd.Env = append(cmd.Env, "CONTEND_TEST_BOOT_ID="+boot, "CONTEND_TEST_KERNEL_RELEASE="+release)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		f.t.Fatal(err)
	}
	return string(out), code
}

func (f *campaignFixture) reboots() []string {
	b, _ := os.ReadFile(f.rebootLg)
	return strings.Fields(strings.ReplaceAll(string(b), " ", "-"))
}

func (f *campaignFixture) events() []string {
	f.t.Helper()
	l, err := campaign.ReadLedger(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, e := range l.Events {
		out = append(out, e.Event)
	}
	return out
}

// allowVolatileTemp lets the campaigns of a test live under root, its
// temporary directory, even where that is on tmpfs (some CI machines'
// /tmp): elsewhere the real check stays.
func allowVolatileTemp(t *testing.T, root string) {
	if _, v, _ := campaign.Volatile(root); !v {
		return
	}
	old := volatileFS
	volatileFS = func(dir string) (string, bool, error) {
		if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
			return "", false, nil
		}
		return old(dir)
	}
	t.Cleanup(func() { volatileFS = old })
}

func release(side byte) string { return "k" + string(side) }

// TestCampaignLoop runs an ABBA campaign of 6 "boots" with the fake reboot
// command: each step checks the kernel, runs, records, arms again and
// reboots into the next side; the last one completes without a reboot.
// The unit passes systemd-analyze verify; the report is boot-level.
func TestCampaignLoop(t *testing.T) {
	f := newCampaign(t, "exec", "-n", "4", "--", "/bin/true")
	p, err := campaign.ReadPlan(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Order != "ABBAAB" {
		t.Fatalf("order %q, want ABBAAB", p.Order)
	}
	if r := runCLI(t, "campaign", "unit", f.dir); r.code != 0 {
		t.Fatalf("unit: %d %s", r.code, r.stderr)
	}
	unit := filepath.Join(f.dir, campaign.UnitName)
	b, err := os.ReadFile(unit)
	if err != nil || !strings.Contains(string(b), "campaign step --at-boot "+f.dir) || !strings.Contains(string(b), "Type=oneshot") {
		t.Fatalf("unit %s: %v\n%s", unit, err, b)
	}
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		out, err := exec.Command(sa, "verify", unit).CombinedOutput()
		if err != nil {
			t.Errorf("systemd-analyze verify %s: %v\n%s", unit, err, out)
		}
	} else {
		t.Log("no systemd-analyze: the unit is not verified")
	}
	if r := runCLI(t, "campaign", "arm", f.dir); r.code != 0 {
		t.Fatalf("arm: %d %s", r.code, r.stderr)
	}
	for i := range p.Order {
		out, code := f.step("boot-"+string(rune('1'+i)), release(p.Order[i]))
		if code != 0 {
			t.Fatalf("step %d: exit %d\n%s", i+1, code, out)
		}
		rb := f.reboots()
		if i < len(p.Order)-1 {
			want := string(rune('2'+i)) + "-" + string(p.Order[i+1])
			if len(rb) != i+1 || rb[i] != want {
				t.Fatalf("after boot %d the fake reboot log ends %v, want %v", i+1, rb, want)
			}
			if !campaign.IsArmed(f.dir) {
				t.Fatalf("after boot %d: not armed for the next", i+1)
			}
		} else if campaign.IsArmed(f.dir) {
			t.Error("still armed after the last boot")
		}
		// The step that already ran in this boot does nothing more.
		if i == 2 {
			out, code := f.step("boot-3", release(p.Order[i]))
			if code != 0 || !strings.Contains(out, "already ran boot 3") {
				t.Errorf("second step in one boot: exit %d\n%s", code, out)
			}
			campaign.Arm(f.dir)
		}
	}
	if n := len(f.reboots()); n != 5 {
		t.Errorf("%d reboots for 6 boots, want 5: %v", n, f.reboots())
	}
	for i := range p.Order {
		rf, err := results.Read(filepath.Join(f.dir, campaign.ResultName(i, p.Order[i])))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rf.Reps {
			if want := "boot-" + string(rune('1'+i)); r.BootID != want {
				t.Fatalf("boot %d: repetition boot id %q, want %q", i+1, r.BootID, want)
			}
		}
	}
	r := runCLI(t, "campaign", "status", f.dir)
	if r.code != 0 || !strings.Contains(r.stdout, "6 of 6 boots done") {
		t.Errorf("status: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "compare", f.dir)
	if r.code != 0 {
		t.Fatalf("compare DIR: %d %s", r.code, r.stderr)
	}
	for _, want := range []string{"Boot level (the boot as the unit: 3+3 boots, 12+12 runs", "variance components: within a boot SD",
		"next campaign", "(measured)", "Kalibera & Jones r* =", "expected interval [-"} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
			t.Errorf("compare DIR lacks %q:\n%s", want, r.stdout)
		}
	}
	t.Logf("compare DIR:\n%s", r.stdout)
	// A boot cost given on the command line is labelled so, not measured.
	r = runCLI(t, "compare", "--boot-cost", "24h", f.dir)
	if one := strings.Join(strings.Fields(r.stdout), " "); r.code != 0 || !strings.Contains(one, "a boot 24h0m0s (given)") || strings.Contains(one, "(measured)") {
		t.Errorf("compare --boot-cost 24h DIR: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "boot-to-boot variance is not measured") {
		t.Errorf("a 3-boot side reported as one boot:\n%s", r.stdout)
	}
	// The step after the last boot has nothing to do.
	if out, code := f.step("boot-7", "kA"); code != 0 || !strings.Contains(out, "complete") {
		t.Errorf("step after completion: %d %s", code, out)
	}
	usePlotHelper(t)
	r = runCLI(t, "campaign", "report", f.dir, "--plot", filepath.Join(f.root, "boots.svg"))
	if r.code != 0 {
		t.Fatalf("report --plot: %d %s", r.code, r.stderr)
	}
	svg, err := os.ReadFile(filepath.Join(f.root, "boots.svg"))
	if err != nil || !strings.Contains(string(svg), "per boot") {
		t.Errorf("boot plot: %v", err)
	}
}

// TestCampaignWrongKernel: a boot of the wrong kernel stops the campaign
// with a message naming both, disarms it and never reboots.
func TestCampaignWrongKernel(t *testing.T) {
	f := newCampaign(t, "exec", "-n", "2", "--", "/bin/true")
	runCLI(t, "campaign", "arm", f.dir)
	out, code := f.step("boot-1", "kB")
	if code != 1 || !strings.Contains(out, `release "kB", expected "kA"`) || !strings.Contains(out, "no reboot") {
		t.Errorf("wrong kernel: exit %d\n%s", code, out)
	}
	if campaign.IsArmed(f.dir) || len(f.reboots()) != 0 {
		t.Errorf("armed %v, reboots %v after a wrong kernel", campaign.IsArmed(f.dir), f.reboots())
	}
	if ev := f.events(); ev[len(ev)-1] != campaign.EvMismatch {
		t.Errorf("ledger %v does not end with the mismatch", ev)
	}
	if _, err := os.Stat(filepath.Join(f.dir, campaign.ResultName(0, 'A'))); err == nil {
		t.Error("a wrong kernel was measured")
	}
	r := runCLI(t, "campaign", "status", f.dir)
	if !strings.Contains(r.stdout, "last stop") || !strings.Contains(r.stdout, "not armed") {
		t.Errorf("status after a mismatch:\n%s", r.stdout)
	}
}

// TestCampaignFailingStep: a run that fails disarms the campaign, without
// a reboot; at-boot steps then do nothing; a manual disarm is respected.
func TestCampaignFailingStep(t *testing.T) {
	f := newCampaign(t, "exec", "-n", "2", "--", "/bin/false")
	runCLI(t, "campaign", "arm", f.dir)
	out, code := f.step("boot-1", "kA")
	if code != 1 || !strings.Contains(out, "failed") || !strings.Contains(out, "disarmed, no reboot") {
		t.Errorf("failing run: exit %d\n%s", code, out)
	}
	if campaign.IsArmed(f.dir) || len(f.reboots()) != 0 {
		t.Errorf("armed %v, reboots %v after a failure", campaign.IsArmed(f.dir), f.reboots())
	}
	n := len(f.events())
	out, code = f.step("boot-2", "kA", "--at-boot")
	if code != 0 || !strings.Contains(out, "not armed: nothing to do") || len(f.events()) != n {
		t.Errorf("at-boot step of a disarmed campaign: %d %s", code, out)
	}
}

// TestCampaignDisarm: after 'campaign disarm' a manual step measures its
// boot but does not reboot.
func TestCampaignDisarm(t *testing.T) {
	f := newCampaign(t, "exec", "-n", "2", "--", "/bin/true")
	runCLI(t, "campaign", "arm", f.dir)
	if r := runCLI(t, "campaign", "disarm", f.dir); r.code != 0 || campaign.IsArmed(f.dir) {
		t.Fatalf("disarm: %d %s", r.code, r.stderr)
	}
	out, code := f.step("boot-1", "kA")
	if code != 0 || !strings.Contains(out, "Not armed, so no reboot") || len(f.reboots()) != 0 {
		t.Errorf("disarmed step: exit %d, reboots %v\n%s", code, f.reboots(), out)
	}
	if _, ok := mustLedger(t, f.dir).Done()[0]; !ok {
		t.Error("the disarmed step did not record its boot")
	}
}

func mustLedger(t *testing.T, dir string) *campaign.Ledger {
	t.Helper()
	l, err := campaign.ReadLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCampaignPowerCut kills a step (SIGKILL, with its children) in the
// middle of its run: the ledger stays readable, the campaign is disarmed
// (no reboot loop), and the next step redoes the boot, keeping the partial
// result file aside. A torn last ledger line (a power cut while writing)
// is skipped and the next event starts a fresh line.
func TestCampaignPowerCut(t *testing.T) {
	f := newCampaign(t, "exec", "-n", "200", "--", "/bin/sleep", "0.05")
	runCLI(t, "campaign", "arm", f.dir)
	cmd := contendCmd(t, "campaign", "step", f.dir)
	cmd.Env = append(cmd.Env, "CONTEND_TEST_BOOT_ID=boot-1", "CONTEND_TEST_KERNEL_RELEASE=kA")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(f.dir, campaign.ResultName(0, 'A'))
	deadline := time.Now().Add(60 * time.Second)
	for {
		if rf, err := results.Read(partial); err == nil && len(rf.Reps) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			t.Fatal("the step did not start its repetitions")
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	time.Sleep(100 * time.Millisecond) // the repetition in flight (its own group) ends by itself

	// A torn line, as a power cut while appending leaves it.
	lf, err := os.OpenFile(filepath.Join(f.dir, campaign.LedgerFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	lf.WriteString(`{"time":"2026-11-30T23:00:00Z","event":"do`)
	lf.Close()

	l := mustLedger(t, f.dir)
	if l.Torn != 1 {
		t.Errorf("torn lines %d, want 1", l.Torn)
	}
	if _, open := l.Started(0); !open {
		t.Fatalf("ledger %v: boot 1 not seen as interrupted", f.events())
	}
	if campaign.IsArmed(f.dir) || len(f.reboots()) != 0 {
		t.Fatalf("armed %v, reboots %v after the kill", campaign.IsArmed(f.dir), f.reboots())
	}
	r := runCLI(t, "campaign", "status", f.dir)
	if !strings.Contains(r.stdout, "interrupted") || !strings.Contains(r.stdout, "1 unreadable line ignored") {
		t.Errorf("status after a kill:\n%s", r.stdout)
	}
	// The next boot (after the power cut) redoes boot 1, shorter.
	p, _ := campaign.ReadPlan(f.dir)
	p.Command = []string{"exec", "-n", "2", "--", "/bin/true"}
	b, _ := json.MarshalIndent(p, "", "  ")
	os.WriteFile(filepath.Join(f.dir, campaign.PlanFile), b, 0o644)
	runCLI(t, "campaign", "arm", f.dir)
	out, code := f.step("boot-2", "kA")
	if code != 0 || !strings.Contains(out, "did not finish: redone") {
		t.Fatalf("redo: exit %d\n%s", code, out)
	}
	l = mustLedger(t, f.dir)
	d, ok := l.Done()[0]
	if !ok || d.BootID != "boot-2" || l.Torn != 1 {
		t.Errorf("after the redo: done %+v, torn %d", d, l.Torn)
	}
	aside, _ := filepath.Glob(filepath.Join(f.dir, campaign.BootsDir, "01-A.interrupted-*.json"))
	if len(aside) != 1 {
		t.Errorf("partial result kept aside: %v", aside)
	}
	if rb := f.reboots(); len(rb) != 1 || rb[0] != "2-B" {
		t.Errorf("reboot after the redo: %v", rb)
	}
}

// TestCampaignBadInput: every flag is checked, with one line and exit 2,
// leaving nothing behind.
func TestCampaignBadInput(t *testing.T) {
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	ok := []string{"--a-boot-command", "true", "--a-release", "kA", "--b-boot-command", "true", "--b-release", "kB"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--boots", "0"}, "--boots"},
		{[]string{"--boots", "1"}, "--boots: 1 is not accepted: the boot-level test needs two boots a side"},
		{[]string{"--order", "AB"}, "needs two boots a side"},
		{[]string{"--boots", "101"}, "--boots"},
		{[]string{"--order", "ABX"}, "--order"},
		{[]string{"--order", "AAAA"}, "--order"},
		{[]string{"--settle-min", "-1s"}, "--settle-min"},
		{[]string{"--settle-min", "2m", "--settle-max", "1m"}, "--settle-max"},
		{[]string{"--settle-load", "-1"}, "--settle-load"},
		{[]string{"--settle-psi", "101"}, "--settle-psi"},
		{[]string{"--a-grub", "x"}, "--a-grub"},
		{[]string{"--b-kexec", "/nonexistent/vmlinuz"}, "--b-kexec"},
		{[]string{"--a-initrd", "/x"}, "--a-initrd"},
	}
	for _, c := range cases {
		before := listFiles(t, dir)
		args := append([]string{"campaign", "init", "kc"}, ok...)
		args = append(append(args, c.args...), "--", "run", "mutex")
		assertUsageError(t, runCLI(t, args...), c.want, dir, before)
	}
	before := listFiles(t, dir)
	same := []string{"campaign", "init", "kc", "--a-boot-command", "true", "--a-release", "k", "--b-boot-command", "true", "--b-release", "k", "--", "run", "mutex"}
	assertUsageError(t, runCLI(t, same...), "the same kernel", dir, before)
	noExpect := []string{"campaign", "init", "kc", "--a-boot-command", "true", "--b-boot-command", "true", "--b-release", "k", "--", "run", "mutex"}
	assertUsageError(t, runCLI(t, noExpect...), "--a-release", dir, before)
	assertUsageError(t, runCLI(t, append(append([]string{"campaign", "init", "kc"}, ok...), "--")...), "after --", dir, before)
	assertUsageError(t, runCLI(t, append(append([]string{"campaign", "init", ""}, ok...), "--", "run", "mutex")...), "campaign directory", dir, before)
	assertUsageError(t, runCLI(t, append(append([]string{"campaign", "init", "kc"}, ok...), "--", "show", "x.json")...), "'run' or an 'exec'", dir, before)
	assertUsageError(t, runCLI(t, append(append([]string{"campaign", "init", "kc"}, ok...), "--", "run", "mutex", "--out", "x.json")...), "--out", dir, before)
	assertUsageError(t, runCLI(t, append(append([]string{"campaign", "init", "kc"}, ok...), "--", "run", "nosuch")...), "no workload", dir, before)
	for _, sub := range []string{"step", "arm", "disarm", "unit", "status", "report"} {
		assertUsageError(t, runCLI(t, "campaign", sub, "nowhere"), "not a campaign directory", dir, before)
		assertUsageError(t, runCLI(t, "campaign", sub), "one campaign directory", dir, before)
	}
	if r := runCLI(t, append(append([]string{"campaign", "init", "kc"}, ok...), "--", "run", "mutex")...); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	before = listFiles(t, dir)
	assertUsageError(t, runCLI(t, append(append([]string{"campaign", "init", "kc"}, ok...), "--", "run", "mutex")...), "already holds a campaign", dir, before)
	assertUsageError(t, runCLI(t, "campaign", "unit", "kc", "--out", "x.txt"), "--out", dir, before)
	assertUsageError(t, runCLI(t, "campaign", "report", "kc", "--plot", "x.gif"), "--plot", dir, before)
	assertUsageError(t, runCLI(t, "campaign", "report", "kc", "--format", "xml"), "--format", dir, before)
	assertUsageError(t, runCLI(t, "campaign", "report", "kc"), "no finished boot", dir, before)
	assertUsageError(t, runCLI(t, "compare", "--boot-cost", "-5s", "a.json", "b.json"), "--boot-cost", dir, before)
}

// TestCampaignInitRefusesTmpfs: a campaign directory on tmpfs (emptied
// by the reboot the campaign is about) is refused with the reason, one
// line, exit 2; so is a new directory whose nearest existing parent is on
// tmpfs.
func TestCampaignInitRefusesTmpfs(t *testing.T) {
	shm := "/dev/shm"
	if fs, v, err := campaign.Volatile(shm); err != nil || !v || fs != "tmpfs" {
		t.Skipf("%s is not tmpfs here (%q, %v, %v)", shm, fs, v, err)
	}
	base, err := os.MkdirTemp(shm, "contend-campaign-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(base)
	args := []string{"--a-boot-command", "true", "--a-release", "kA", "--b-boot-command", "true", "--b-release", "kB", "--", "run", "mutex"}
	for _, dir := range []string{base, filepath.Join(base, "new", "kc")} {
		before := listFiles(t, base)
		assertUsageError(t, runCLI(t, append([]string{"campaign", "init", dir}, args...)...), "is on tmpfs, which a reboot empties", base, before)
	}
	// A disk is accepted.
	if fs, v, err := campaign.Volatile(t.TempDir()); err != nil || (v && fs == "") {
		t.Errorf("Volatile(TempDir) = %q, %v, %v", fs, v, err)
	}
}

// TestCompareOneBoot: files whose repetitions all ran in one boot get the
// one-line warning that the p-value covers this boot only.
func TestCompareOneBoot(t *testing.T) {
	dir := chdirTemp(t)
	for _, n := range []string{"a.json", "b.json"} {
		if r := runCLI(t, "exec", "-n", "3", "-q", "--out", filepath.Join(dir, n), "--", "/bin/true"); r.code != 0 {
			t.Fatalf("exec: %d %s", r.code, r.stderr)
		}
	}
	r := runCLI(t, "compare", "a.json", "b.json")
	if r.code != 0 {
		t.Fatalf("compare: %d %s", r.code, r.stderr)
	}
	want := "Boots: A ran in one boot, B in one boot: boot-to-boot variance is not measured and the p-value covers this boot only."
	if env.BootID() != "" && !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
		t.Errorf("compare of one boot lacks %q:\n%s", want, r.stdout)
	}
}

// TestCampaignStatusLatest: a boot whose run failed and was then redone
// shows as done, and status no longer reports the failure as the last stop.
func TestCampaignStatusLatest(t *testing.T) {
	okFile := filepath.Join(t.TempDir(), "ok")
	f := newCampaign(t, "exec", "-n", "2", "--", "/bin/sh", "-c", "test -e "+okFile)
	if out, code := f.step("boot-1", "kA"); code != 1 {
		t.Fatalf("failing step: exit %d\n%s", code, out)
	}
	r := runCLI(t, "campaign", "status", f.dir)
	if !strings.Contains(r.stdout, "last stop") || !strings.Contains(r.stdout, "stopped (failed") {
		t.Errorf("status after a failed step lacks the stop:\n%s", r.stdout)
	}
	if err := os.WriteFile(okFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := f.step("boot-2", "kA"); code != 0 {
		t.Fatalf("redone step: exit %d\n%s", code, out)
	}
	r = runCLI(t, "campaign", "status", f.dir)
	if strings.Contains(r.stdout, "last stop") || strings.Contains(r.stdout, "failed") || !strings.Contains(r.stdout, "boot 1  A  done in boot boot-2") {
		t.Errorf("status after the boot was redone still shows the failure:\n%s", r.stdout)
	}
}

// campaignProcs returns the pids of the processes whose command line holds s.
func campaignProcs(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' || e.Name() == strconv.Itoa(os.Getpid()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestCampaignStepLock: a second step of a campaign whose step is running
// is refused, naming the holder, and leaves the ledger alone; a SIGKILLed
// step leaves no run behind.
func TestCampaignStepLock(t *testing.T) {
	f := newCampaign(t, "exec", "-n", "1", "--", "/bin/sleep", "60")
	first := contendCmd(t, "campaign", "step", f.dir)
	first.Env = append(first.Env, "CONTEND_TEST_BOOT_ID=boot-1", "CONTEND_TEST_KERNEL_RELEASE=kA")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		first.Process.Kill()
		first.Wait()
		for _, pid := range campaignProcs(f.dir) {
			if n, err := strconv.Atoi(pid); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
	}()
	for i := 0; i < 600 && !slices.Contains(f.events(), "start"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if ev := f.events(); !slices.Equal(ev, []string{"start"}) {
		t.Fatalf("the first step did not start: %v", ev)
	}
	out, code := f.step("boot-1", "kA")
	if code != 1 || !strings.Contains(out, "in use by step pid "+strconv.Itoa(first.Process.Pid)) {
		t.Errorf("second step: exit %d, want 1 and the holder's pid %d\n%s", code, first.Process.Pid, out)
	}
	if ev := f.events(); !slices.Equal(ev, []string{"start"}) {
		t.Errorf("the refused step wrote to the ledger: %v", ev)
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	left := campaignProcs(f.dir)
	for i := 0; i < 400 && len(left) > 0; i++ {
		time.Sleep(50 * time.Millisecond)
		left = campaignProcs(f.dir)
	}
	if len(left) > 0 {
		t.Errorf("the SIGKILLed step left its run behind: pids %v", left)
	}
}

// TestCampaignInitValidatesCommand: a command that could only fail after a
// reboot is refused at init with its own error, exit 2, no DIR left.
func TestCampaignInitValidatesCommand(t *testing.T) {
	dir := chdirTemp(t)
	ok := []string{"--a-boot-command", "true", "--a-release", "kA", "--b-boot-command", "true", "--b-release", "kB", "--"}
	for _, c := range []struct {
		command []string
		want    string
	}{
		{[]string{"run", "faultme", "--threads", "0"}, "--threads: 0 is out of range"},
		{[]string{"exec"}, "which program"},
		{[]string{"exec", "-n", "0", "--", "/bin/true"}, "--runs"},
		{[]string{"run", "mutex", "--nosuchflag"}, "nosuchflag"},
	} {
		before := listFiles(t, dir)
		assertUsageError(t, runCLI(t, append(append([]string{"campaign", "init", "kc"}, ok...), c.command...)...), c.want, dir, before)
	}
	if r := runCLI(t, append(append([]string{"campaign", "init", "kc"}, ok...), "exec", "-q", "-n", "3", "--", "/bin/true")...); r.code != 0 {
		t.Errorf("a good command refused: %d %s", r.code, r.stderr)
	}
}

// TestCampaignEmptiedLedger: with the ledger emptied after boot 1, the
// next step takes boot 1's complete result file for what it is (recorded
// as done, with its boot) instead of running into it and advising a redo
// that fails the same way; the campaign goes on with boot 2. A result file
// that is not a finished measurement (its end line lost) is set aside and
// its boot measured again. On the old code the second step failed ("an
// existing --out file is never overwritten") and so did every later one.
func TestCampaignEmptiedLedger(t *testing.T) {
	f := newCampaign(t, "exec", "-n", "2", "--", "/bin/true")
	ledger := filepath.Join(f.dir, campaign.LedgerFile)
	if out, code := f.step("boot-1", "kA"); code != 0 {
		t.Fatalf("step 1: exit %d\n%s", code, out)
	}
	if err := os.Truncate(ledger, 0); err != nil {
		t.Fatal(err)
	}
	// Still in kernel A: boot 1 is recorded from its file, and boot 2
	// wants side B.
	out, code := f.step("boot-2", "kA")
	if !strings.Contains(out, "the ledger had no record of boot 1, but boots/01-A.json is its complete result (2 ok, boot boot-1): recorded as done") ||
		code != 1 || !strings.Contains(out, "boot 2 of 6 expects side B") {
		t.Errorf("step after the ledger was emptied: exit %d, want boot 1 recorded and boot 2 refused in kernel A\n%s", code, out)
	}
	l, err := campaign.ReadLedger(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := l.Done(); len(d) != 1 || d[0].BootID != "boot-1" || d[0].OK != 2 {
		t.Errorf("done events after the recovery: %+v, want boot 1 in boot-1 with 2 ok", d)
	}
	if out, code := f.step("boot-3", "kB"); code != 0 {
		t.Fatalf("step of boot 2 in kernel B: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(f.dir, campaign.ResultName(1, 'B'))); err != nil {
		t.Errorf("boot 2 not measured: %v", err)
	}

	// Boot 3 (B) measured, the ledger emptied again and the file's end
	// line lost: set aside, measured again.
	if out, code := f.step("boot-4", "kB"); code != 0 {
		t.Fatalf("step of boot 3: exit %d\n%s", code, out)
	}
	if err := os.Truncate(ledger, 0); err != nil {
		t.Fatal(err)
	}
	third := filepath.Join(f.dir, campaign.ResultName(2, 'B'))
	b, err := os.ReadFile(third)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], `{"end":`) {
		t.Fatalf("last line of %s is not its end: %q", third, lines[len(lines)-1])
	}
	os.WriteFile(third, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644)
	out, code = f.step("boot-5", "kB")
	if code != 0 || !strings.Contains(out, "boots/03-B.json is not a finished measurement of it (its run did not finish): set aside as boots/03-B.unrecorded-") {
		t.Errorf("step with an unfinished, unrecorded file: exit %d\n%s", code, out)
	}
	l, _ = campaign.ReadLedger(f.dir)
	if d := l.Done(); len(d) != 3 || d[2].BootID != "boot-5" || d[0].BootID != "boot-1" || d[1].BootID != "boot-3" {
		t.Errorf("done events: %+v, want boots 1 and 2 recovered and boot 3 measured again in boot-5", d)
	}
	if g, _ := filepath.Glob(filepath.Join(f.dir, "boots", "03-B.unrecorded-*.json")); len(g) != 1 {
		t.Errorf("the unfinished file was not kept aside: %v", g)
	}
}

// TestCampaignRefusesControlCharacters: a newline in the campaign
// directory wrote a unit that ran /evil as root at every boot
// ("campaign init $'/x/y\n[Service]\nExecStartPre=/evil\n'", then
// "campaign unit"). Every string of init, and the directory of every
// campaign command, is refused with a control character in it: exit 2,
// one line naming it, nothing written.
func TestCampaignRefusesControlCharacters(t *testing.T) {
	dir := chdirTemp(t)
	ok := []string{"--a-boot-command", "true", "--a-release", "ka", "--b-boot-command", "true", "--b-release", "kb"}
	evil := "y\n[Service]\nExecStartPre=/evil\n"
	cases := []struct {
		args []string
		want string
	}{
		{append(append([]string{"campaign", "init", evil}, ok...), "--", "run", "mutex"), "the directory"},
		{append(append([]string{"campaign", "init", "kc"}, ok...), "--", "run", "mutex", "--threads", "2\x1b[2J"), "word 4 of the command"},
		{[]string{"campaign", "init", "kc", "--a-boot-command", "true\nreboot", "--a-release", "ka", "--b-boot-command", "true", "--b-release", "kb", "--", "run", "mutex"}, "--a-boot-command"},
		{append(append([]string{"campaign", "init", "kc"}, ok...), "--reboot-command", "systemctl\rreboot", "--", "run", "mutex"), "--reboot-command"},
		{append(append([]string{"campaign", "init", "kc", "--a-cmdline", "quiet\x07"}, ok...), "--", "run", "mutex"), "--a-cmdline"},
		{[]string{"campaign", "unit", evil}, "the directory"},
		{[]string{"campaign", "status", "kc\x1b]0;x\x07"}, "the directory"},
	}
	for _, c := range cases {
		before := listFiles(t, dir)
		r := runCLI(t, c.args...)
		assertUsageError(t, r, c.want, dir, before)
		if strings.ContainsAny(r.stderr, "\x1b\r\x07") {
			t.Errorf("the message prints the control characters raw: %q", r.stderr)
		}
	}
}
