package e2e

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"contend/internal/campaign"
	"contend/internal/results"
)

// The campaign every case plans: ABBA, two boots a side, a workload small
// enough for TCG, and a short settle (the guest's load stays above 1 for
// a minute after a boot under TCG: the step waits settleMax and records
// that it did not settle).
const (
	bootsPerSide = 2
	runsPerBoot  = 3
	settle       = "--settle-min 2s --settle-max 20s"
	workload     = "run faultme --threads 2 --mem 16MiB -n 3"
	guestCmdline = "root=/dev/vda rw console=ttyS0,115200 panic=-1"
)

// A case is one guest image and one scenario of scripts/e2e/guest.sh.
type e2eCase struct {
	name    string
	variant string // the image: minimal (no dbus, no logind) or logind
	mode    string // abba: the whole campaign; fault: side B boots kernel A
	logind  string // what 'systemctl is-active systemd-logind' must say in it
}

// TestCampaignReboots runs the campaign of docs/campaigns.md for real: it builds the
// Debian 12 guests (scripts/e2e/guest-image.sh, cached), boots kernel A
// (6.1.0-NN-amd64) in QEMU, and in the guest's root shell on the serial
// console runs 'campaign init --a-kexec ... --b-kexec ...', 'campaign
// unit', installs and enables the unit, 'campaign arm' and 'campaign
// step'; the guest then reboots itself with kexec through the ABBA
// campaign (A is 6.1.0-NN-amd64, B 6.1.0-NN-rt-amd64), the unit running
// each later step, until the campaign is no longer armed, when the guest
// writes the status and the report and powers off. In an image without
// logind and in one with it, every boot must have run its step in the
// planned kernel, the campaign must have completed and be disarmed, and
// the report must have the boot level. Then the fault: side B's kexec
// boots kernel A; the campaign must stop at boot 2, disarmed, with one
// mismatch naming both kernels, and no further boot.
func TestCampaignReboots(t *testing.T) {
	if os.Getenv("CONTEND_E2E") != "1" {
		t.Skip("the end-to-end campaign runs with CONTEND_E2E=1 (make e2e): it builds Debian guests and boots them in QEMU, minutes of CPU")
	}
	if os.Geteuid() != 0 {
		t.Fatal("CONTEND_E2E=1: run as root (mmdebstrap, debugfs)")
	}
	perBoot := 8 * time.Minute
	if v := os.Getenv("CONTEND_E2E_BOOT_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Minute {
			t.Fatalf("CONTEND_E2E_BOOT_TIMEOUT: %q is not accepted: a duration of 1m or more, such as 10m", v)
		}
		perBoot = d
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := workDir(t)
	t.Logf("work directory: %s", work)
	whole := time.Now()
	bin := buildStatic(t, repo, work)
	accel := ""
	for _, c := range []e2eCase{
		{name: "minimal", variant: "minimal", mode: "abba", logind: "inactive"},
		{name: "logind", variant: "logind", mode: "abba", logind: "active"},
		{name: "fault", variant: "minimal", mode: "fault", logind: "inactive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(work, c.name)
			k := buildImage(t, repo, dir, c, bin)
			if accel == "" {
				accel = chooseAccel(t, filepath.Join(dir, "vmlinuz-a"), work)
			}
			planned := 2 * bootsPerSide
			if c.mode == "fault" {
				planned = 2 // A, then the wrong kernel for B
			}
			console := filepath.Join(dir, "console.log")
			start := time.Now()
			q := startQEMU(t, qemuArgs(accel, filepath.Join(dir, "root.img"), filepath.Join(dir, "vmlinuz-a"),
				filepath.Join(dir, "initrd-a"), guestCmdline, console), filepath.Join(dir, "qemu.out"))
			err := q.await(console, planned, perBoot)
			took := time.Since(start)
			log, _ := os.ReadFile(console)
			if err != nil {
				t.Fatalf("%v\nthe console's last lines:\n%s", err, tail(log, 60))
			}
			got := bootKernels(log)
			t.Logf("%s: %d boots (%s) in %s, %s", c.name, len(got), strings.Join(got, ", "), took.Round(time.Second), accel)
			out := copyOut(t, dir)
			if t.Failed() {
				return
			}
			defer func() {
				if t.Failed() {
					t.Logf("the console's last lines:\n%s", tail(log, 80))
				}
			}()
			checkConsole(t, c, k, log)
			if c.mode == "fault" {
				checkFault(t, k, log, out)
				return
			}
			checkComplete(t, k, log, out)
		})
	}
	t.Logf("the whole end-to-end run: %s (%s)", time.Since(whole).Round(time.Second), loadavg())
}

// workDir is $CONTEND_E2E_KEEP (kept after the test: consoles, campaign
// directories, journals; the images are removed) or a temporary one.
func workDir(t *testing.T) string {
	if d := os.Getenv("CONTEND_E2E_KEEP"); d != "" {
		d, err := filepath.Abs(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// buildStatic builds contend linked statically: the guest's glibc need
// not be the host's.
func buildStatic(t *testing.T, repo, work string) string {
	t.Helper()
	bin := filepath.Join(work, "contend")
	cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs,netgo,osusergo",
		"-ldflags", "-linkmode external -extldflags -static", "-o", bin, "./cmd/contend")
	cmd.Dir = repo
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build (static): %v\n%s", err, b)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatalf("%s is linked dynamically (it has an ELF interpreter): the guest may not have the host's libraries", bin)
		}
	}
	return bin
}

// kernels is the kernels.env of an image.
type kernels struct{ A, B string }

// buildImage writes the case's scenario and builds its image into dir.
func buildImage(t *testing.T, repo, dir string, c e2eCase, bin string) kernels {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	scen := filepath.Join(dir, "scenario.env")
	text := fmt.Sprintf("MODE=%s\nBOOTS=%d\nSETTLE='%s'\nRUN='%s'\n", c.mode, bootsPerSide, settle, workload)
	if err := os.WriteFile(scen, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join(repo, "scripts/e2e/guest-image.sh"), c.variant, dir, bin,
		scen+"=/usr/local/lib/contend-e2e/scenario.env")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/e2e/guest-image.sh %s: %v\n%s", c.variant, err, b)
	}
	t.Logf("image %s: %s", c.variant, time.Since(start).Round(time.Second))
	env, err := os.ReadFile(filepath.Join(dir, "kernels.env"))
	if err != nil {
		t.Fatal(err)
	}
	var k kernels
	sc := bufio.NewScanner(bytes.NewReader(env))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "KA="); ok {
			k.A = v
		}
		if v, ok := strings.CutPrefix(sc.Text(), "KB="); ok {
			k.B = v
		}
	}
	if k.A == "" || k.B == "" || k.A == k.B {
		t.Fatalf("kernels.env names no two kernels:\n%s", env)
	}
	return k
}

// copyOut copies the campaign directory, the scenario's state and the
// journal out of the image into dir/out (debugfs rdump: no mount), then
// removes the image when the work directory is kept.
func copyOut(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "out")
	os.RemoveAll(out)
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "root.img")
	b, err := exec.Command("debugfs", "-R", "rdump /var/lib/kc /var/lib/contend-e2e /var/log/journal "+out, img).CombinedOutput()
	if err != nil {
		t.Fatalf("debugfs rdump: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, "kc", campaign.PlanFile)); err != nil {
		t.Fatalf("no campaign in the image (%v); debugfs said:\n%s", err, b)
	}
	if os.Getenv("CONTEND_E2E_KEEP") != "" {
		os.Remove(img)
	}
	return out
}

var (
	upLine       = regexp.MustCompile(`contend-e2e: up: kernel (\S+), boot (\S+), logind (\S+)`)
	scenarioLine = regexp.MustCompile(`contend-e2e: scenario (\S+) in the (\S+) image: kernel (\S+), boot \S+, logind (\S+)`)
)

// checkConsole checks that the scenario ran once, in kernel A, in the
// image asked for, and that every boot's watch saw logind as the variant
// has it.
func checkConsole(t *testing.T, c e2eCase, k kernels, log []byte) {
	t.Helper()
	sc := scenarioLine.FindAllSubmatch(log, -1)
	if len(sc) != 1 {
		t.Fatalf("the scenario started %d times, want once", len(sc))
	}
	if m := sc[0]; string(m[1]) != c.mode || string(m[2]) != c.variant || string(m[3]) != k.A || string(m[4]) != c.logind {
		t.Errorf("scenario line %q: want mode %s, image %s, kernel %s, logind %s", m[0], c.mode, c.variant, k.A, c.logind)
	}
	ups := upLine.FindAllSubmatch(log, -1)
	if len(ups) == 0 {
		t.Errorf("no boot said it was up (contend-e2e-watch.service)")
	}
	for _, m := range ups {
		if string(m[3]) != c.logind {
			t.Errorf("%q: logind should be %s in the %s image", m[0], c.logind, c.variant)
		}
	}
}

// slotRelease is the release the plan's boot slot must run.
func slotRelease(p *campaign.Plan, k kernels, slot int) string {
	if p.Order[slot] == 'A' {
		return k.A
	}
	return k.B
}

// checkComplete checks a whole ABBA campaign: the boots the console saw,
// the ledger, the result files, the status and the report.
func checkComplete(t *testing.T, k kernels, log []byte, out string) {
	t.Helper()
	kc := filepath.Join(out, "kc")
	p, err := campaign.ReadPlan(kc)
	if err != nil {
		t.Fatal(err)
	}
	if p.Order != "ABBA" {
		t.Fatalf("plan order %s, want ABBA", p.Order)
	}
	var want []string
	for i := range p.Order {
		want = append(want, slotRelease(p, k, i))
	}
	if got := bootKernels(log); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the guest booted %v, want %v (the plan's order, each boot once)", got, want)
	}
	led, err := campaign.ReadLedger(kc)
	if err != nil {
		t.Fatal(err)
	}
	if led.Torn != 0 {
		t.Errorf("ledger: %d torn lines", led.Torn)
	}
	starts, reboots, completes := map[int]int{}, map[int]int{}, 0
	for _, e := range led.Events {
		switch e.Event {
		case campaign.EvFailed, campaign.EvMismatch, campaign.EvRedo:
			t.Errorf("ledger: %s in boot %d: %s", e.Event, e.Slot+1, e.Message)
		case campaign.EvStart:
			starts[e.Slot]++
			if e.Kernel == nil || e.Kernel.Release != want[e.Slot] {
				t.Errorf("ledger: boot %d (side %s) started in kernel %v, want %s", e.Slot+1, e.Side, e.Kernel, want[e.Slot])
			}
		case campaign.EvReboot:
			reboots[e.Slot]++
		case campaign.EvRebooting:
			// The step ended by a signal after its reboot began: the
			// shutdown of that reboot, never before it.
			if reboots[e.Slot] == 0 {
				t.Errorf("ledger: rebooting into boot %d before any reboot into it: %s", e.Slot+1, e.Message)
			}
		case campaign.EvComplete:
			completes++
		}
	}
	done := led.Done()
	ids := map[string]int{}
	for s := range p.Order {
		d, ok := done[s]
		if !ok {
			t.Errorf("ledger: boot %d has no done event", s+1)
			continue
		}
		if starts[s] != 1 {
			t.Errorf("ledger: boot %d started %d times, want once", s+1, starts[s])
		}
		if s > 0 && reboots[s] != 1 {
			t.Errorf("ledger: %d reboots into boot %d, want 1", reboots[s], s+1)
		}
		if prev, dup := ids[d.BootID]; dup {
			t.Errorf("ledger: boots %d and %d ran in the same boot %s", prev+1, s+1, d.BootID)
		}
		ids[d.BootID] = s
		f, err := results.Read(filepath.Join(kc, d.Result))
		if err != nil {
			t.Errorf("boot %d: %v", s+1, err)
			continue
		}
		if r := f.Env["kernel.release"]; r != want[s] {
			t.Errorf("%s: ran in kernel %s, want %s", d.Result, r, want[s])
		}
		if id := f.Env["kernel.boot_id"]; id != d.BootID {
			t.Errorf("%s: ran in boot %s, the ledger says %s", d.Result, id, d.BootID)
		}
		if n := f.Counts(-1)[results.StatusOK]; n != runsPerBoot || d.OK != runsPerBoot {
			t.Errorf("%s: %d ok repetitions (ledger %d), want %d", d.Result, n, d.OK, runsPerBoot)
		}
	}
	if reboots[0] != 0 || len(reboots) != len(p.Order)-1 {
		t.Errorf("ledger: reboots into %v, want one into each of boots 2 to %d", reboots, len(p.Order))
	}
	if completes != 1 {
		t.Errorf("ledger: %d complete events, want 1", completes)
	}
	if campaign.IsArmed(kc) {
		t.Errorf("the finished campaign is still armed")
	}
	state := filepath.Join(out, "contend-e2e")
	status := readFile(t, filepath.Join(state, "status.txt"))
	if !strings.Contains(status, fmt.Sprintf("%d of %d boots done", len(p.Order), len(p.Order))) || !strings.Contains(status, "complete") {
		t.Errorf("status does not say every boot is done, complete:\n%s", status)
	}
	if rc := strings.TrimSpace(readFile(t, filepath.Join(state, "report.rc"))); rc != "0" {
		t.Errorf("campaign report exited %s", rc)
	}
	report := readFile(t, filepath.Join(state, "report.txt"))
	lower := strings.ToLower(report)
	if !strings.Contains(lower, "boot level") || !strings.Contains(report, fmt.Sprintf("%d+%d boots", bootsPerSide, bootsPerSide)) {
		t.Errorf("the report has no boot level of %d+%d boots:\n%s", bootsPerSide, bootsPerSide, report)
	}
	checkBootCost(t, led, report)
	if !t.Failed() {
		t.Logf("campaign status:\n%s\ncampaign report:\n%s", status, report)
	}
}

// measuredCost is the report's cost of a boot, taken from the ledger.
var measuredCost = regexp.MustCompile(`a boot (\S+) \(measured\)`)

// checkBootCost checks that the boot cost the report plans the next
// campaign with is what a boot cost here: from a reboot to the start of
// the next boot's step, the boot and the settling included (a reboot
// into the step's own boot starts it after the settle wait). It must lie
// among the reboots' costs read from the ledger.
func checkBootCost(t *testing.T, led *campaign.Ledger, report string) {
	t.Helper()
	reboot := map[int]time.Time{}
	var lo, hi time.Duration
	for _, e := range led.Events {
		switch e.Event {
		case campaign.EvReboot:
			reboot[e.Slot] = e.Time
		case campaign.EvStart:
			r, ok := reboot[e.Slot]
			if !ok {
				continue
			}
			c := e.Time.Sub(r)
			if e.Settle != nil && c < time.Duration(e.Settle.Waited) {
				t.Errorf("ledger: boot %d started %s after its reboot, but settled for %s", e.Slot+1, c, time.Duration(e.Settle.Waited))
			}
			if lo == 0 || c < lo {
				lo = c
			}
			hi = max(hi, c)
		}
	}
	m := measuredCost.FindStringSubmatch(report)
	if m == nil {
		t.Errorf("the report gives no measured cost of a boot")
		return
	}
	got, err := time.ParseDuration(m[1])
	if err != nil || got < lo-time.Second || got > hi+time.Second {
		t.Errorf("the report's boot cost %q is not one of this campaign's, %s to %s from a reboot to the next step's start (the boot and the settling)", m[1], lo, hi)
	}
}

// checkFault checks the campaign whose side B booted kernel A: it stopped
// at boot 2, once, disarmed, naming both kernels, and booted no further.
func checkFault(t *testing.T, k kernels, log []byte, out string) {
	t.Helper()
	kc := filepath.Join(out, "kc")
	if got := bootKernels(log); strings.Join(got, " ") != k.A+" "+k.A {
		t.Errorf("the guest booted %v, want %s twice (boot 1, then side B's wrong kernel) and no more", got, k.A)
	}
	led, err := campaign.ReadLedger(kc)
	if err != nil {
		t.Fatal(err)
	}
	var mismatches []campaign.Event
	reboots := 0
	for _, e := range led.Events {
		switch e.Event {
		case campaign.EvMismatch:
			mismatches = append(mismatches, e)
		case campaign.EvReboot:
			reboots++
		case campaign.EvStart, campaign.EvDone:
			if e.Slot != 0 {
				t.Errorf("ledger: %s of boot %d after the wrong kernel", e.Event, e.Slot+1)
			}
		case campaign.EvComplete, campaign.EvFailed, campaign.EvRedo:
			t.Errorf("ledger: %s in boot %d: %s", e.Event, e.Slot+1, e.Message)
		}
	}
	if _, ok := led.Done()[0]; !ok {
		t.Errorf("ledger: boot 1 has no done event")
	}
	if reboots != 1 {
		t.Errorf("ledger: %d reboots, want 1 (into boot 2, none after the mismatch)", reboots)
	}
	if len(mismatches) != 1 {
		t.Fatalf("ledger: %d mismatch events, want 1", len(mismatches))
	}
	m := mismatches[0]
	if m.Slot != 1 || m.Kernel == nil || m.Kernel.Release != k.A {
		t.Errorf("ledger: mismatch in boot %d with kernel %v, want boot 2 with %s", m.Slot+1, m.Kernel, k.A)
	}
	// The message names the kernel expected and the one running (neither
	// release is a part of the other).
	if !strings.Contains(m.Message, k.B) || !strings.Contains(m.Message, k.A) {
		t.Errorf("the mismatch does not name both kernels (%s, %s): %s", k.B, k.A, m.Message)
	}
	// The step says it once; the status printed at the end quotes it
	// without "campaign stopped".
	if n := bytes.Count(log, []byte("campaign stopped")); n != 1 {
		t.Errorf("the console shows %d stops, want one", n)
	}
	if campaign.IsArmed(kc) {
		t.Errorf("the stopped campaign is still armed")
	}
	status := readFile(t, filepath.Join(out, "contend-e2e", "status.txt"))
	if !strings.Contains(status, "stopped (mismatch") || !strings.Contains(status, "not armed") {
		t.Errorf("status does not say the campaign stopped at the mismatch, disarmed:\n%s", status)
	}
	t.Logf("campaign status:\n%s", status)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v", err)
	}
	return string(b)
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	return "load " + strings.Join(strings.Fields(string(b))[:3], " ")
}
