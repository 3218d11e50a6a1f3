package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"contend/internal/campaign"
	"contend/internal/kbuild"
	"contend/internal/kbuild/kbuildtest"
)

// fakeKernelTree makes a git repository that mimics a kernel tree's
// targets (tinyconfig, olddefconfig, bzImage: a boot header naming
// release 6.1.0-tree before the objects of src/*.c), with two commits
// that differ in one source.
func fakeKernelTree(t *testing.T) string {
	t.Helper()
	tr := kbuildtest.New(t, "6.1.0-tree")
	for i, body := range []string{"a0\n", "a1\n"} {
		tr.Write("src/a.c", body)
		tr.Write("src/b.c", "b\n")
		tr.Commit(fmt.Sprint("commit ", i))
	}
	return tr.Dir
}

// TestCampaignVMInitKernelTree: 'campaign init --vm --kernel-tree' builds
// the two revisions into the campaign's build directory (B rebuilding
// the one source that differs), makes their images the sides' kernels
// and keeps each build's facts in the plan for the boots' result files;
// its flags are refused in one line (exit 2) when they do not go
// together, nothing written.
func TestCampaignVMInitKernelTree(t *testing.T) {
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	tree := fakeKernelTree(t)
	before := listFiles(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vm", "--a-rev", "HEAD"}, "--a-rev goes with --kernel-tree"},
		{[]string{"--vm", "--kernel-config", "tinyconfig"}, "--kernel-config goes with --kernel-tree"},
		{[]string{"--kernel-tree", tree, "--a-rev", "HEAD", "--b-rev", "HEAD", "--a-boot-command", "true", "--b-boot-command", "true"}, "--kernel-tree goes with --vm"},
		{[]string{"--vm", "--kernel-tree", tree, "--a-rev", "HEAD"}, "--b-rev: give side B's revision of --kernel-tree"},
		{[]string{"--vm", "--kernel-tree", tree, "--a-rev", "HEAD", "--b-rev", "HEAD", "--a-kernel", tree}, "--a-kernel: --kernel-tree builds side A's kernel"},
		{[]string{"--vm", "--kernel-tree", tree, "--a-rev", "HEAD", "--b-rev", "HEAD", "--kernel-config", "nonsense"}, `nonsense" is not defconfig, tinyconfig, running, nor a readable config file`},
	} {
		args := append(append([]string{"campaign", "init", "kc"}, c.args...), "--", "run", "faultme", "-n", "2")
		assertUsageError(t, runCLI(t, args...), c.want, dir, before)
	}
	r := runCLI(t, "campaign", "init", "kc", "--vm", "--kernel-tree", tree, "--kernel-config", "tinyconfig", "--a-rev", "HEAD~1", "--b-rev", "HEAD",
		"--vm-cpus", "1", "--vm-accel", "tcg", "--boots", "2", "--", "run", "faultme", "-n", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "kernel A: HEAD~1 (") || !strings.Contains(r.stderr, "2 objects rebuilt") || !strings.Contains(r.stderr, "1 object rebuilt") {
		t.Errorf("stderr %q: want both builds, A all its objects, B the one that differs", r.stderr)
	}
	p, err := campaign.ReadPlan(filepath.Join(dir, "kc"))
	if err != nil {
		t.Fatal(err)
	}
	for i, rev := range []string{"HEAD~1", "HEAD"} {
		out, _ := exec.Command("git", "-C", tree, "rev-parse", rev).Output()
		h := strings.TrimSpace(string(out))
		k := p.Sides[i].Boot.VM
		if k == nil || k.Kernel != filepath.Join(dir, "kc", "kbuild", kbuild.ImagesDir, h[:12]+".bzImage") || k.Build["kbuild.revision"] != h ||
			k.Build["kbuild.config.SCHED_MC"] != "y" || p.Sides[i].Expect.Release != "6.1.0-tree" {
			t.Errorf("side %d: %+v, release %q", i, k, p.Sides[i].Expect.Release)
		}
	}
}

// TestCampaignVMInitKernelPatch: 'campaign init --vm --kernel-tree
// --a-rev REV --b-patch FILE' builds side A at REV and side B at REV
// with the patch (B rebuilding what the patch touches), records the
// patch's name and hash in B's facts and both builds, with their sides,
// in the builds ledger that 'campaign status' sums up; a patch that
// does not apply, is missing, or comes with --b-rev or without
// --kernel-tree is refused in one line (exit 2), nothing written.
func TestCampaignVMInitKernelPatch(t *testing.T) {
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	tree := fakeKernelTree(t)
	files := t.TempDir()
	good := filepath.Join(files, "fix.patch")
	os.WriteFile(good, []byte("From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] b: the fix\n\n---\n"+
		"diff --git a/src/b.c b/src/b.c\n--- a/src/b.c\n+++ b/src/b.c\n@@ -1 +1 @@\n-b\n+b-fixed\n-- \n2.39.2\n"), 0o644)
	bad := filepath.Join(files, "stale.patch")
	os.WriteFile(bad, []byte("--- a/src/a.c\n+++ b/src/a.c\n@@ -1 +1 @@\n-a9\n+a10\n"), 0o644)
	before := listFiles(t, dir)
	kt := []string{"--vm", "--kernel-tree", tree, "--kernel-config", "tinyconfig", "--vm-cpus", "1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vm", "--a-rev", "HEAD", "--b-patch", good}, "--a-rev goes with --kernel-tree"},
		{[]string{"--vm", "--b-patch", good}, "--b-patch goes with --kernel-tree"},
		{append(slices.Clone(kt), "--a-rev", "HEAD", "--b-patch", bad), "--b-patch: stale.patch does not apply to HEAD ("},
		{append(slices.Clone(kt), "--a-rev", "HEAD", "--b-patch", filepath.Join(files, "none.patch")), "--b-patch: cannot read the patch"},
		{append(slices.Clone(kt), "--a-rev", "HEAD", "--b-patch", ""), "--b-patch: give a patch file"},
		{append(slices.Clone(kt), "--a-rev", "HEAD", "--b-rev", "HEAD", "--b-patch", good), "--b-rev: --b-patch makes side B from --a-rev and the patch"},
		{append(slices.Clone(kt), "--b-patch", good), "--a-rev: give side A's revision"},
	} {
		args := append(append([]string{"campaign", "init", "kp"}, c.args...), "--", "run", "faultme", "-n", "2")
		assertUsageError(t, runCLI(t, args...), c.want, dir, before)
	}
	r := runCLI(t, append(append([]string{"campaign", "init", "kp"}, kt...), "--a-rev", "HEAD~1", "--b-patch", good,
		"--vm-accel", "tcg", "--boots", "2", "--", "run", "faultme", "-n", "2")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "kernel A: HEAD~1 (") || !strings.Contains(r.stderr, "2 objects rebuilt") ||
		!strings.Contains(r.stderr, "with fix.patch (") || !strings.Contains(r.stderr, "1 object rebuilt") {
		t.Errorf("stderr %q: want A built whole, B with the patch rebuilding b.c", r.stderr)
	}
	out, _ := exec.Command("git", "-C", tree, "rev-parse", "HEAD~1").Output()
	h := strings.TrimSpace(string(out))
	p, err := campaign.ReadPlan(filepath.Join(dir, "kp"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Sides[0].Boot.VM, p.Sides[1].Boot.VM
	if a.Build["kbuild.revision"] != h || b.Build["kbuild.revision"] != h || a.Build["kbuild.patch"] != "" ||
		b.Build["kbuild.patch"] != "fix.patch" || len(b.Build["kbuild.patch_sha256"]) != 64 || a.Kernel == b.Kernel {
		t.Errorf("sides: A %+v, B %+v", a, b)
	}
	rs, torn, err := kbuild.ReadLedger(filepath.Join(dir, "kp", kbuild.BuildsFile))
	if err != nil || torn != 0 || len(rs) != 2 || rs[0].Side != "A" || rs[1].Side != "B" || rs[0].Revision != h || rs[1].Patch != "fix.patch" ||
		rs[1].PatchSHA256 != b.Build["kbuild.patch_sha256"] || rs[0].Rebuilt != 2 || rs[1].Rebuilt != 1 {
		t.Errorf("the builds ledger: %+v, torn %d, %v", rs, torn, err)
	}
	st := runCLI(t, "campaign", "status", "kp")
	if st.code != 0 || !strings.Contains(st.stdout, "kernel builds: 2: the first ") || !strings.Contains(st.stdout, "2 objects rebuilt; the 1 after it: time median ") || !strings.Contains(st.stdout, "objects rebuilt median 1, max 1; total ") {
		t.Errorf("campaign status: exit %d\n%s%s", st.code, st.stdout, st.stderr)
	}
}
