package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"contend/internal/bisect"
)

// TestKernelTreeBisect builds real kernels from a tree: Debian's
// linux-source-6.1 made a git repository of 17 commits
// (scripts/e2e/ktree.sh), each after the first changing one file that a
// tiny kernel compiles, commit 11 planting a busy wait of 20 us in
// do_anonymous_page (about 0.33 s more per run of faultme over 64 MiB,
// 16384 faults of 4 KiB: several times the run's time under TCG, many
// noise SDs). The config is tinyconfig with
// scripts/kernel/contend-guest.config; the build directory (make O=)
// and ccache are kept in the e2e cache between runs, so that a run after
// the first rebuilds only what the commits change. 'bisect --vm
// --kernel-tree' over the range must name commit 11 with P >= 0.95 and
// verify it; 'campaign init --vm --kernel-tree' of the two ends must
// find the slowdown at the boot level, an A/A of one end must not.
//
// It runs with CONTEND_E2E=1 and CONTEND_E2E_KBUILD=1: the first run on
// a machine builds the tree and a clean kernel (tens of minutes on 2
// cores), so .ci/run sets CONTEND_E2E_KBUILD=1 in make e2e when the cache
// holds a built tree (scripts/e2e/kbuild-cached.sh), and otherwise runs
// 'make e2e-kbuild' after make e2e when 45 of its 90 minutes are left.
func TestKernelTreeBisect(t *testing.T) {
	if os.Getenv("CONTEND_E2E") != "1" || os.Getenv("CONTEND_E2E_KBUILD") != "1" {
		t.Skip("the end-to-end kernel build and bisect runs with CONTEND_E2E=1 CONTEND_E2E_KBUILD=1 (make e2e-kbuild): its first run builds a kernel from linux-source-6.1")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := exec.Command(filepath.Join(repo, "scripts/e2e/ktree.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/e2e/ktree.sh: %v", err)
	}
	tree := strings.TrimSpace(string(out))
	t.Logf("the tree %s: %s (%s)", tree, time.Since(start).Round(time.Second), loadavg())
	cache := filepath.Dir(tree)
	kbuildDir := filepath.Join(cache, "kbuild-"+strings.TrimPrefix(filepath.Base(tree), "ktree-"))
	os.Setenv("CCACHE_DIR", filepath.Join(cache, "ccache"))
	if _, err := exec.LookPath("ccache"); err != nil {
		t.Logf("ccache is not installed: every build's objects are compiled (apt-get install ccache)")
	}
	revs, err := exec.Command("git", "-C", tree, "rev-list", "--reverse", "--first-parent", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	hashes := strings.Fields(string(revs))
	const k = 11
	if len(hashes) != 17 {
		t.Fatalf("the tree has %d commits, want 17", len(hashes))
	}
	work := filepath.Join(workDir(t), "kbuild")
	os.MkdirAll(work, 0o755)
	bin := filepath.Join(work, "contend")
	if b, err := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "../cmd/contend").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	frag := filepath.Join(repo, "scripts/kernel/contend-guest.config")
	accel := os.Getenv("CONTEND_E2E_ACCEL")
	if accel == "" {
		accel = "auto"
	}
	kflags := []string{"--kernel-tree", tree, "--kernel-config", "tinyconfig", "--kernel-config-fragment", frag, "--kernel-build-dir", kbuildDir,
		"--vm-accel", accel, "--vm-cpus", "1", "--vm-mem", "512MiB", "--vm-timeout", "3m"}
	measure := []string{"--", "run", "faultme", "--threads", "1", "--mem", "64MiB"}
	ctx, cancel := context.WithTimeout(context.Background(), 70*time.Minute)
	defer cancel()
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		t0 := time.Now()
		err := cmd.Run()
		t.Logf("contend %s: %s, %s\n%s", args[0]+" "+args[1], time.Since(t0).Round(time.Second), loadavg(), lastLines(e.String(), 60))
		if err != nil {
			t.Fatalf("contend %s: %v\n%s\n%s", strings.Join(args, " "), err, o.String(), e.String())
		}
		return o.String(), e.String()
	}

	// The bisect.
	dir := filepath.Join(work, "bs")
	os.RemoveAll(dir)
	args := append(append([]string{"bisect", "--vm", "--good", hashes[0], "--bad", hashes[16], "--dir", dir,
		"--boots-per-probe", "2", "--runs-per-boot", "3", "--calibrate", "4", "--calibrate-max", "8", "--verify-runs", "4",
		"--metric", "time", "--format", "json"}, kflags...), measure...)
	t0 := time.Now()
	o, _ := run(args...)
	whole := time.Since(t0)
	var res bisect.Result
	if err := json.Unmarshal([]byte(o), &res); err != nil {
		t.Fatalf("the JSON result: %v\n%s", err, o)
	}
	if res.Stop != bisect.StopConfident || len(res.Top) == 0 || res.Top[0].Hash != hashes[k] || res.Top[0].P < 0.95 {
		t.Fatalf("want commit %d (%s) with P >= 0.95; got stop %q, top %+v, skipped %+v", k, hashes[k][:12], res.Stop, res.Top, res.Skipped)
	}
	if res.Verify == nil || !res.Verify.Verified {
		t.Errorf("the culprit is not verified: %+v", res.Verify)
	}
	builds, err := bisect.ReadBuilds(dir)
	if err != nil || len(builds) < 3 {
		t.Fatalf("the builds' ledger: %d builds, %v", len(builds), err)
	}
	var secs []float64
	var lines []string
	for _, b := range builds {
		secs = append(secs, b.BuildSeconds)
		lines = append(lines, b.Revision[:12]+" "+strconv.FormatFloat(b.BuildSeconds, 'f', 1, 64)+" s "+strconv.Itoa(b.Rebuilt)+" objects")
		if b.ConfigSHA256 != builds[0].ConfigSHA256 || b.Options["SCHED_MC"] != "y" || b.Options["SMP"] != "y" {
			t.Errorf("build of %s: config %s (the first %s), options %v", b.Revision[:12], b.ConfigSHA256[:12], builds[0].ConfigSHA256[:12], b.Options)
		}
	}
	rebuilds := slices.Clone(secs[1:])
	slices.Sort(rebuilds)
	t.Logf("bisect: %s whole (%d boots), %d builds: first %.1f s, later median %.1f s, max %.1f s; each: %s; %s",
		whole.Round(time.Second), res.Runs.Total, len(builds), secs[0], rebuilds[len(rebuilds)/2], rebuilds[len(rebuilds)-1], strings.Join(lines, ", "), loadavg())
	// Each boot's result file records its kernel's build.
	files, _ := filepath.Glob(filepath.Join(dir, bisect.RunsDir, "*.jsonl"))
	if len(files) != res.Runs.Total {
		t.Errorf("%d result files for %d boots", len(files), res.Runs.Total)
	}

	// The campaigns: the ends, then one end against itself.
	verdict := func(name, a, b string) string {
		t.Helper()
		cdir := filepath.Join(work, name)
		os.RemoveAll(cdir)
		run(append(append([]string{"campaign", "init", cdir, "--vm", "--a-rev", a, "--b-rev", b, "--boots", "3"}, kflags...),
			append(measure[:len(measure):len(measure)], "-n", "3")...)...)
		run("campaign", "run", cdir)
		rep, _ := run("campaign", "report", cdir)
		return rep
	}
	ab := verdict("ends", hashes[0], hashes[16])
	aa := verdict("aa", hashes[16], hashes[16])
	re := regexp.MustCompile(`boot level ([+-][0-9.]+)%`)
	change := func(rep string) float64 {
		m := re.FindStringSubmatch(strings.Join(strings.Fields(rep), " "))
		if m == nil {
			t.Fatalf("no boot-level headline in the report:\n%s", rep)
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		return x
	}
	one := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if c := change(ab); c < 100 || strings.Contains(one(ab), "no significant change") {
		t.Errorf("the ends' campaign: boot level %+.1f%%; want the slowdown (more than +100%%, significant):\n%s", c, ab)
	}
	if c := change(aa); c > 50 || c < -33 {
		t.Errorf("the A/A campaign: boot level %+.1f%%; want no slowdown:\n%s", c, aa)
	}
	if strings.Contains(one(ab), "configs differ") || strings.Contains(one(aa), "configs differ") {
		t.Errorf("one config on both sides, yet a config warning:\n%s\n%s", ab, aa)
	}
	t.Logf("the whole test: %s, %s", time.Since(start).Round(time.Second), loadavg())
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
