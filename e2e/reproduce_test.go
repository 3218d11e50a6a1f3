package e2e

import (
	"bytes"
	"context"
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

// TestVMReproduce answers a robot-style report (testdata/robot-sched_yield.mail)
// with 'contend reproduce MAIL --run --a-kernel --b-kernel' on Debian's two
// 6.1 kernels (scripts/e2e/kernels.sh), 3 boots a side of a small test in
// fresh QEMU guests: every boot ran its side's kernel with the test put into
// the guest, and the answer is the robot's layout with its row quoted above
// contend's, n in boots, and a verdict word; no QEMU is left.
func TestVMReproduce(t *testing.T) {
	if os.Getenv("CONTEND_E2E") != "1" {
		t.Skip("the end-to-end reproduce runs with CONTEND_E2E=1 (make e2e): it boots Debian kernels in QEMU, minutes of CPU")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(workDir(t), "reproduce")
	os.RemoveAll(work)
	os.MkdirAll(work, 0o755)
	kdir, k := debianKernels(t, repo)
	bin := filepath.Join(work, "contend")
	if b, err := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "../cmd/contend").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	// The report's test, in will-it-scale's shape: a small one of ours.
	tests := filepath.Join(work, "tests")
	os.MkdirAll(tests, 0o755)
	src := "#include <sched.h>\nchar *testcase_description = \"sched_yield, for contend's e2e\";\n" +
		"void testcase(unsigned long long *iterations, unsigned long nr)\n{\n\tfor (;;) {\n\t\tsched_yield();\n\t\t(*iterations)++;\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(tests, "sched_yield.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	accel := os.Getenv("CONTEND_E2E_ACCEL")
	if accel == "" {
		accel = "auto"
	}
	dir := filepath.Join(work, "campaign")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "reproduce", "testdata/robot-sched_yield.mail", "--run", "--tests", tests,
		"--a-kernel", filepath.Join(kdir, "vmlinuz-a"), "--b-kernel", filepath.Join(kdir, "vmlinuz-b"),
		"--boots", "3", "--runs", "4", "--duration", "200ms", "--vm-accel", accel, "--out", dir)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err = cmd.Run()
	t.Logf("reproduce --run: %s, %s\nstderr:\n%s\nstdout:\n%s", time.Since(start).Round(time.Second), loadavg(), e.String(), o.String())
	if err != nil {
		t.Fatalf("reproduce --run: %v", err)
	}
	ans := o.String()
	lines := strings.Split(ans, "\n")
	quoted := false
	for i := 0; i+1 < len(lines); i++ {
		robot := regexp.MustCompile(`^>\s+1234567\s+-10\.2%\s+1108641\s+will-it-scale\.per_thread_ops$`).MatchString(lines[i])
		quoted = quoted || robot && !strings.HasPrefix(lines[i+1], ">") && strings.HasSuffix(lines[i+1], "  will-it-scale.per_thread_ops")
	}
	if !quoted {
		t.Errorf("no robot row quoted above contend's per_thread_ops")
	}
	for _, w := range []string{"contend: n 3 boots vs 3 boots", "boots as the unit: 3 boots and 3 boots", "measured in a VM ("} {
		if !strings.Contains(ans, w) {
			t.Errorf("the answer lacks %q", w)
		}
	}
	if !regexp.MustCompile(`(?m)^verdict: (reproduced|not reproduced|opposite): `).MatchString(ans) {
		t.Errorf("the answer has no verdict word")
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
	if len(done) != 6 || p.VM.Guest == nil || len(p.VM.Guest.Files) != 3 {
		t.Fatalf("%d boots done of %s, files for the guests %+v", len(done), p.Order, p.VM.Guest)
	}
	for slot, d := range done {
		f, err := results.Read(filepath.Join(dir, d.Result))
		if err != nil {
			t.Fatal(err)
		}
		want := k.A
		if p.Order[slot] == 'B' {
			want = k.B
		}
		if f.Env["kernel.release"] != want || f.Workload != "wis" || f.Counts(-1)[results.StatusOK] != 4 {
			t.Errorf("boot %d: release %s (want %s), workload %s, %v", slot+1, f.Env["kernel.release"], want, f.Workload, f.Counts(-1))
		}
	}
	if q := qemuOf(dir); len(q) > 0 {
		t.Errorf("QEMU left running: %v", q)
	}
}
