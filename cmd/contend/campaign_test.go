package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"contend/internal/campaign"
	"contend/internal/env"
	"contend/internal/results"
	"contend/internal/testutil"
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
	return newCampaignBoot(t, "", "", command...)
}

// newCampaignBoot is newCampaign with shell text run after the fake reboot
// command's log line when booting side A (thenA) or B (thenB).
func newCampaignBoot(t *testing.T, thenA, thenB string, command ...string) *campaignFixture {
	t.Helper()
	// A directory of its own, not the working directory (which a
	// parallel test may not change): the campaign's paths are absolute,
	// and its steps run there (step).
	root := t.TempDir()
	allowVolatileTemp(t, root)
	f := &campaignFixture{t: t, root: root, dir: filepath.Join(root, "kc"), rebootLg: filepath.Join(root, "reboots.log")}
	fake := `echo "$CONTEND_CAMPAIGN_SLOT $CONTEND_CAMPAIGN_SIDE" >> ` + f.rebootLg
	fakeA, fakeB := fake, fake
	if thenA != "" {
		fakeA += "; " + thenA
	}
	if thenB != "" {
		fakeB += "; " + thenB
	}
	args := []string{"campaign", "init", f.dir, "--boots", "3",
		"--a-boot-command", fakeA, "--a-release", "kA",
		"--b-boot-command", fakeB, "--b-release", "kB",
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
	testutil.DefaultSignals(f.t, cmd) // as the boot unit starts it, SIGHUP not ignored even under nohup
	cmd.Dir = f.root
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
// /tmp): elsewhere the real check stays. Parallel tests add and remove
// their roots; volatileFS, which reads them, is set once (init).
func allowVolatileTemp(t *testing.T, root string) {
	if _, v, _ := campaign.Volatile(root); !v {
		return
	}
	volatileRoots.Lock()
	volatileRoots.m[root] = true
	volatileRoots.Unlock()
	t.Cleanup(func() {
		volatileRoots.Lock()
		delete(volatileRoots.m, root)
		volatileRoots.Unlock()
	})
}

// volatileRoots are the temporary directories of the campaign tests
// running now that are on tmpfs (allowVolatileTemp).
var volatileRoots = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// Campaign init's check of the file system (volatileFS) passes the
// directories under volatileRoots, set before any test runs.
func init() {
	check := volatileFS
	volatileFS = func(dir string) (string, bool, error) {
		volatileRoots.Lock()
		defer volatileRoots.Unlock()
		for root := range volatileRoots.m {
			if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
				return "", false, nil
			}
		}
		return check(dir)
	}
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
		// The step that already ran in this boot does nothing more,
		// and leaves the arming to the next boot's step.
		if i == 2 {
			out, code := f.step("boot-3", release(p.Order[i]))
			if code != 0 || !strings.Contains(out, "already ran boot 3") {
				t.Errorf("second step in one boot: exit %d\n%s", code, out)
			}
			if !campaign.IsArmed(f.dir) {
				t.Fatal("the step that found its boot done consumed the arming")
			}
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
	r = runCLI(t, "compare", "--full", f.dir)
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
	// By default campaign report (= compare DIR) is brief: the boot-level
	// headline and the metrics that changed, a count of the others.
	for _, args := range [][]string{{"compare", f.dir}, {"campaign", "report", f.dir}} {
		b := runCLI(t, args...)
		one := strings.Join(strings.Fields(b.stdout), " ")
		if b.code != 0 || !strings.Contains(one, "--full gives the full report") || strings.Contains(one, "variance components") || strings.Count(one, ": 3 boots ") != 2 || strings.Contains(one, "boots/") {
			t.Errorf("%s: exit %d, not the brief report:\n%s%s", strings.Join(args, " "), b.code, b.stdout, b.stderr)
		}
	}
	// In the robot's layout the headline's n is in boots.
	r = runCLI(t, "campaign", "report", "--format", "lkml", f.dir)
	if r.code != 0 || !strings.Contains(r.stdout, "contend: n 3 boots vs 3 boots;") || !strings.Contains(r.stdout, "Student's t on the per-boot means (12 and 12 runs") {
		t.Errorf("campaign report --format lkml: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// In mmtests' layout: n in boots, the star from the boot-level test.
	r = runCLI(t, "campaign", "report", "--format", "mmtests", f.dir)
	if r.code != 0 || strings.Count(r.stdout, "3 boots (12 runs)") != 2 || !strings.Contains(r.stdout, "Student's t on the per-boot means (the boot is the unit)") {
		t.Errorf("campaign report --format mmtests: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A boot cost given on the command line is labelled so, not measured.
	r = runCLI(t, "compare", "--full", "--boot-cost", "24h", f.dir)
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

// TestCampaignDisarm: after 'campaign disarm' a manual step measures its
// boot but does not reboot.
func TestCampaignDisarm(t *testing.T) {
	t.Parallel() // its steps are processes of their own (no repetition here); its files under its own root
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
	aside, _ := filepath.Glob(filepath.Join(f.dir, campaign.BootsDir, "01-A.interrupted-*.jsonl"))
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
		// Both sides reboot by their own command: a reboot command would
		// never run (it was dropped without a word).
		{[]string{"--reboot-command", "reboot -f"}, "--reboot-command: no side is booted with"},
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

// TestCompareOneBoot: files whose repetitions all ran in one boot say,
// under the headline of the brief and the full report, that the p-value
// covers this boot only.
func TestCompareOneBoot(t *testing.T) {
	dir := chdirTemp(t)
	for _, n := range []string{"a.json", "b.json"} {
		if r := runCLI(t, "exec", "-n", "3", "-q", "--out", filepath.Join(dir, n), "--", "/bin/true"); r.code != 0 {
			t.Fatalf("exec: %d %s", r.code, r.stderr)
		}
	}
	for _, detail := range []string{"--full", "--all"} {
		r := runCLI(t, "compare", detail, "a.json", "b.json")
		if r.code != 0 {
			t.Fatalf("compare: %d %s", r.code, r.stderr)
		}
		want := "A and B ran within one boot: the p-value covers this boot, not boot-to-boot variance"
		if env.BootID() != "" && !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
			t.Errorf("compare %s of one boot lacks %q:\n%s", detail, want, r.stdout)
		}
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
	t.Parallel() // its steps are processes of their own (no repetition here); its files under its own root
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

// lastEvent returns the last event of the ledger of f.
func (f *campaignFixture) lastEvent() campaign.Event {
	f.t.Helper()
	l := mustLedger(f.t, f.dir)
	if len(l.Events) == 0 {
		f.t.Fatal("empty ledger")
	}
	return l.Events[len(l.Events)-1]
}

// reapLater kills, at the end of the test, the process whose pid a fake
// reboot command wrote to file (a reboot command the step left running).
func reapLater(t *testing.T, file string) {
	t.Cleanup(func() {
		b, err := os.ReadFile(file)
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// TestCampaignRebootSurvivesShutdown: once the step has armed the
// campaign again and logged its reboot, the shutdown that the reboot
// command starts (the unit stopped: SIGTERM to the step, to the command
// or to both; a login shell's SIGHUP; a SIGINT) is the reboot under way:
// the step exits 0, the ledger says so with the signal's name, the
// campaign stays armed and the next boot's step continues it.
func TestCampaignRebootSurvivesShutdown(t *testing.T) {
	t.Parallel() // its steps are processes of their own (no repetition here); its files under its own root
	for _, c := range []struct {
		name, then, want string
	}{
		{"command killed by SIGTERM", `kill -TERM $$`, "ended by SIGTERM"},
		{"command killed by SIGKILL", `kill -KILL $$`, "ended by SIGKILL"},
		{"shell of a killed command", `sh -c 'kill -TERM $$'`, "ended by SIGTERM"},
		{"step got SIGTERM", `echo $$ > PIDFILE; kill -TERM $PPID; exec sleep 60 >/dev/null 2>&1`, "the step got SIGTERM"},
		{"step got SIGHUP", `echo $$ > PIDFILE; kill -HUP $PPID; exec sleep 60 >/dev/null 2>&1`, "the step got SIGHUP"},
		{"step got SIGINT", `echo $$ > PIDFILE; kill -INT $PPID; exec sleep 60 >/dev/null 2>&1`, "the step got SIGINT"},
		{"both got SIGTERM", `kill -TERM $PPID $$`, "SIGTERM"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "pid")
			reapLater(t, pidfile)
			then := strings.ReplaceAll(c.then, "PIDFILE", pidfile)
			f := newCampaignBoot(t, "", then, "exec", "-n", "2", "--", "/bin/true")
			runCLI(t, "campaign", "arm", f.dir)
			out, code := f.step("boot-1", "kA", "--at-boot")
			if code != 0 {
				t.Fatalf("the step stopped by its own reboot: exit %d, want 0\n%s", code, out)
			}
			e := f.lastEvent()
			if e.Event != campaign.EvRebooting || e.Slot != 1 || e.Side != "B" || !strings.Contains(e.Message, c.want) || !strings.Contains(e.Message, "stays armed") {
				t.Errorf("last event %+v: want %q of boot 2 (B) naming %q", e, campaign.EvRebooting, c.want)
			}
			if !campaign.IsArmed(f.dir) {
				t.Fatal("the shutdown of the step's own reboot disarmed the campaign")
			}
			if ev := f.events(); slices.Contains(ev, campaign.EvFailed) || slices.Contains(ev, campaign.EvDisarm) {
				t.Errorf("ledger %v: the reboot under way recorded as a failure", ev)
			}
			out, code = f.step("boot-2", "kB", "--at-boot")
			if _, ok := mustLedger(t, f.dir).Done()[1]; code != 0 || !ok {
				t.Errorf("the next boot's step: exit %d\n%s", code, out)
			}
			r := runCLI(t, "campaign", "status", f.dir)
			if strings.Contains(r.stdout, "last stop") {
				t.Errorf("status shows the reboot under way as a stop:\n%s", r.stdout)
			}
		})
	}
}

// TestCampaignSignalBeforeReboot: a SIGHUP, SIGINT or SIGTERM while the
// step runs its boot (before the point of no return) stops it: exit 1,
// a 'failed' line in the ledger naming the signal, disarmed, no reboot,
// and the run stopped with it.
func TestCampaignSignalBeforeReboot(t *testing.T) {
	t.Parallel() // its steps are processes of their own (no repetition here); its files under its own root
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM} {
		name := campaign.SignalName(sig)
		t.Run(name, func(t *testing.T) {
			f := newCampaign(t, "exec", "-n", "500", "--", "/bin/sleep", "0.02")
			runCLI(t, "campaign", "arm", f.dir)
			cmd := contendCmd(t, "campaign", "step", f.dir)
			testutil.DefaultSignals(t, cmd) // SIGHUP not ignored even under nohup
			cmd.Env = append(cmd.Env, "CONTEND_TEST_BOOT_ID=boot-1", "CONTEND_TEST_KERNEL_RELEASE=kA")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for i := 0; i < 1200 && !slices.Contains(f.events(), "start"); i++ {
				time.Sleep(50 * time.Millisecond)
			}
			if !slices.Contains(f.events(), "start") {
				t.Fatalf("the step did not start: %v\n%s", f.events(), out.String())
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			code := -2
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err == nil {
				code = 0
			}
			if code != 1 {
				t.Errorf("step after %s: exit %d (%v), want 1\n%s", name, code, err, out.String())
			}
			e := f.lastEvent()
			if e.Event != campaign.EvFailed || e.Slot != 0 || !strings.Contains(e.Message, "stopped by "+name) || !strings.Contains(e.Message, "disarmed, no reboot") {
				t.Errorf("last event %+v: want 'failed' of boot 1 naming %s", e, name)
			}
			if campaign.IsArmed(f.dir) || len(f.reboots()) != 0 {
				t.Errorf("armed %v, reboots %v after %s", campaign.IsArmed(f.dir), f.reboots(), name)
			}
			left := campaignProcs(f.dir)
			for i := 0; i < 400 && len(left) > 0; i++ {
				time.Sleep(50 * time.Millisecond)
				left = campaignProcs(f.dir)
			}
			if len(left) > 0 {
				t.Errorf("the stopped step left its run behind: pids %v", left)
			}
		})
	}
}

// TestCampaignSignalWhileSettling: a SIGHUP while the step waits for the
// machine to settle (before its start line) is recorded too.
func TestCampaignSignalWhileSettling(t *testing.T) {
	root := chdirTemp(t)
	dir := filepath.Join(root, "kc")
	if r := runCLI(t, "campaign", "init", dir, "--a-boot-command", "true", "--a-release", "kA", "--b-boot-command", "true", "--b-release", "kB",
		"--settle-min", "1h", "--settle-max", "2h", "--", "exec", "-n", "2", "--", "/bin/true"); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	cmd := contendCmd(t, "campaign", "step", dir)
	testutil.DefaultSignals(t, cmd) // SIGHUP not ignored even under nohup
	cmd.Env = append(cmd.Env, "CONTEND_TEST_BOOT_ID=boot-1", "CONTEND_TEST_KERNEL_RELEASE=kA")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	defer cmd.Process.Kill()
	// The step prints its boot line just before it settles.
	buf := make([]byte, 4096)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "boot 1 of 6") {
		n, err := pr.Read(buf)
		if err != nil {
			t.Fatalf("the step ended before settling: %v\n%s", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	name := "SIGHUP"
	cmd.Process.Signal(syscall.SIGHUP)
	go io.Copy(io.Discard, pr)
	if err := cmd.Wait(); err == nil {
		t.Error("the step stopped while settling exited 0")
	}
	l := mustLedger(t, dir)
	if len(l.Events) == 0 || l.Events[len(l.Events)-1].Event != campaign.EvFailed || !strings.Contains(l.Events[len(l.Events)-1].Message, "stopped by "+name+" while settling") {
		t.Errorf("ledger %+v: want a 'failed' naming %s while settling", l.Events, name)
	}
}

// TestCampaignNohupKeepsSIGHUPIgnored: a step started with SIGHUP ignored
// (nohup) does not start catching it: a SIGHUP during its run changes
// nothing, and the boot is done.
func TestCampaignNohupKeepsSIGHUPIgnored(t *testing.T) {
	t.Parallel() // its steps are processes of their own (no repetition here); its files under its own root
	f := newCampaign(t, "exec", "-n", "40", "--", "/bin/sleep", "0.02")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `trap "" HUP; exec "$0" "$@"`, exe, "campaign", "step", f.dir)
	cmd.Env = append(os.Environ(), "CONTEND_TEST_AS_MAIN=1", "CONTEND_TEST_BOOT_ID=boot-1", "CONTEND_TEST_KERNEL_RELEASE=kA")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for i := 0; i < 1200 && !slices.Contains(f.events(), "start"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the step under nohup stopped by SIGHUP: %v\n%s", err, out.String())
	}
	if _, ok := mustLedger(t, f.dir).Done()[0]; !ok || slices.Contains(f.events(), campaign.EvFailed) {
		t.Errorf("ledger %v: boot 1 not done", f.events())
	}
}
