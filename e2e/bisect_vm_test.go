package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/bisect"
)

// TestVMBisect bisects a kernel change through virtual machines: a git
// repository made here whose 17 commits each name Debian's 6.1 generic
// kernel (scripts/e2e/kernels.sh) and a command line in boot.txt, which
// the build step prints ('kernel: PATH', 'append: WORDS'); from commit k
// on the command line says transparent_hugepage=always, before it
// never, so that faultme's read faults map the huge zero page (one fault
// per 2 MiB) instead of the 4 KiB one: its fault count (a count, not a
// time: the same on a loaded machine) falls from 16,385 to about 32, or
// to about 545 where the mapping is not 2 MiB-aligned (kernels before 6.7
// do not align it: in the lean child, a C process as faultme.c's, the 64
// MiB land unaligned and its two ends take 512 faults of 4 KiB, where the
// Go child's landed aligned): at least 20x. The
// guests have 1 GiB: below 512 MiB of RAM Linux turns THP off whatever
// the command line says. The bisect, each probe a few fresh guests, must name k with P >= 0.95,
// verify it, say the accelerator, and leave no QEMU.
func TestVMBisect(t *testing.T) {
	if os.Getenv("CONTEND_E2E") != "1" {
		t.Skip("the end-to-end kernel bisect runs with CONTEND_E2E=1 (make e2e): it boots Debian kernels in QEMU, minutes of CPU")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(workDir(t), "bisectvm")
	os.MkdirAll(work, 0o755)
	kdir, _ := debianKernels(t, repo)
	kernel := filepath.Join(kdir, "vmlinuz-a")
	bin := filepath.Join(work, "contend")
	if b, err := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "../cmd/contend").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}

	// The repository: commit 0 (good) and 16 more; the change at k.
	const n, k = 16, 11
	src := filepath.Join(work, "src")
	os.RemoveAll(src)
	os.MkdirAll(src, 0o755)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return strings.TrimSpace(string(b))
	}
	git("init", "-q", "-b", "main")
	var hashes []string
	for i := 0; i <= n; i++ {
		thp := "never"
		if i >= k {
			thp = "always"
		}
		body := fmt.Sprintf("kernel: %s\nappend: transparent_hugepage=%s\n", kernel, thp)
		if err := os.WriteFile(filepath.Join(src, "boot.txt"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(src, "n.txt"), []byte(fmt.Sprintln(i)), 0o644)
		git("add", ".")
		git("commit", "-q", "-m", fmt.Sprintf("commit %d (thp %s)", i, thp))
		hashes = append(hashes, git("rev-parse", "HEAD"))
	}

	accel := os.Getenv("CONTEND_E2E_ACCEL")
	if accel == "" {
		accel = "auto"
	}
	dir := filepath.Join(work, "bs")
	os.RemoveAll(dir)
	args := []string{"bisect", "--vm", "--vm-accel", accel, "--vm-cpus", "1", "--vm-mem", "1GiB", "--vm-timeout", "2m",
		"--repo", src, "--good", hashes[0], "--bad", hashes[n], "--build", "cat boot.txt", "--dir", dir,
		"--boots-per-probe", "2", "--runs-per-boot", "3", "--calibrate", "4", "--calibrate-max", "8", "--verify-runs", "4",
		"--metric", "faults", "--format", "json",
		"--", "run", "faultme", "--threads", "1", "--mem", "64MiB"}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err = cmd.Run()
	t.Logf("contend bisect --vm: %s, %s\n%s", time.Since(start).Round(time.Second), loadavg(), e.String())
	if err != nil {
		t.Fatalf("contend %s: %v\n%s", strings.Join(args, " "), err, o.String())
	}
	var res bisect.Result
	if err := json.Unmarshal(o.Bytes(), &res); err != nil {
		t.Fatalf("the JSON result: %v\n%s", err, o.String())
	}
	// A guest that hangs (seen here under load: contend's init silent
	// after "Run /init", once in about 20 boots) skips its commit with
	// the fault's line; when that is commit k, the culprit named is the
	// next commit measured with k among the skipped commits before it,
	// which is what the search must say then.
	named := len(res.Top) > 0 && res.Top[0].Hash == hashes[k]
	for _, sk := range res.Skipped {
		t.Logf("skipped commit %d: %s", sk.Index, sk.Reason)
		if sk.Index == k && len(res.Top) > 0 && !strings.Contains(sk.Reason, "the guest did not run the measurement") {
			t.Errorf("commit %d skipped for another reason than a fault of its guest: %s", k, sk.Reason)
		}
		if sk.Index == k && len(res.Top) > 0 {
			for _, c := range res.Top[0].Skipped {
				named = named || c.Hash == hashes[k]
			}
		}
	}
	if res.Stop != bisect.StopConfident || !named || res.Top[0].P < 0.95 {
		t.Fatalf("want commit %d (%s) with P >= 0.95; got stop %q, top %+v", k, hashes[k][:12], res.Stop, res.Top)
	}
	if res.Verify == nil || !res.Verify.Verified {
		t.Errorf("the culprit is not verified: %+v", res.Verify)
	}
	if res.Unit != "boots" || !strings.HasPrefix(res.Where, "in a VM (") {
		t.Errorf("unit %q, where %q: want boots in a VM", res.Unit, res.Where)
	}
	if !res.Calibration.Differ || res.Calibration.MedianBad*20 > res.Calibration.MedianGood {
		t.Errorf("calibration: faults good %v, bad %v: want the ends to differ by more than 20x", res.Calibration.MedianGood, res.Calibration.MedianBad)
	}
	// One result file a boot, each from the guest (its vm.accel).
	files, _ := filepath.Glob(filepath.Join(dir, bisect.RunsDir, "*.jsonl"))
	if len(files) != res.Runs.Total {
		t.Errorf("%d result files for %d boots", len(files), res.Runs.Total)
	}
	// No QEMU outlives the search, nor a worktree.
	if q := qemuOf(dir); len(q) > 0 {
		t.Errorf("QEMU left running: %v", q)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, bisect.WorkDir)); len(ents) > 0 {
		t.Errorf("%d worktrees left in %s", len(ents), filepath.Join(dir, bisect.WorkDir))
	}
	// The text says where it ran.
	txt, err := exec.Command(bin, "bisect", "status", dir).Output()
	if err != nil || !strings.Contains(string(txt), "boots: ") || !strings.Contains(string(txt), "in a VM (") {
		t.Errorf("bisect status: %v\n%s", err, txt)
	}
	t.Logf("%s", txt)

	// Ctrl-C (SIGINT) in a boot: contend stops, says how to resume,
	// and leaves no QEMU nor worktree; then a SIGKILLed resume leaves
	// no QEMU either. The accelerator the search chose, without KVM's
	// probe again.
	chosen := accel
	if strings.Contains(res.Where, "(TCG") {
		chosen = "tcg"
	} else if strings.Contains(res.Where, "(KVM") {
		chosen = "kvm"
	}
	idir := filepath.Join(work, "interrupted")
	os.RemoveAll(idir)
	iargs := append([]string{}, args...)
	for i, a := range iargs {
		switch {
		case a == dir:
			iargs[i] = idir
		case a == accel && iargs[i-1] == "--vm-accel":
			iargs[i] = chosen
		}
	}
	started := func(t *testing.T, cmd *exec.Cmd) {
		t.Helper()
		for end := time.Now().Add(3 * time.Minute); len(qemuOf(idir)) == 0 && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
		if len(qemuOf(idir)) == 0 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("no guest started within 3 minutes")
		}
	}
	gone := func(t *testing.T, what string) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); len(qemuOf(idir)) > 0 && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
		if left := qemuOf(idir); len(left) > 0 {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("QEMU %v outlived %s by 10 s (killed now)", left, what)
		}
	}
	cmd = exec.Command(bin, iargs...)
	var ie bytes.Buffer
	cmd.Stderr = &ie
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started(t, cmd)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	gone(t, "a Ctrl-C")
	if !strings.Contains(ie.String(), "contend bisect resume "+idir) {
		t.Errorf("after Ctrl-C: %s", ie.String())
	}
	if ents, _ := os.ReadDir(filepath.Join(idir, bisect.WorkDir)); len(ents) > 0 {
		t.Errorf("%d worktrees left after Ctrl-C", len(ents))
	}
	cmd = exec.Command(bin, "bisect", "resume", idir, "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started(t, cmd)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	gone(t, "a SIGKILLed bisect resume")
}
