package bisect

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/guest"
	"contend/internal/kbuild"
	"contend/internal/kbuild/kbuildtest"
	"contend/internal/vm"
)

// kernelTree makes a fake kernel tree of n+1 commits, each changing one
// of its sources; from commit k on mm.c holds SLOW.
func kernelTree(t *testing.T, n, k int) (string, []Commit) {
	t.Helper()
	tr := kbuildtest.New(t, "6.1.0-test")
	var cs []Commit
	for i := 0; i <= n; i++ {
		for _, f := range []string{"a", "b", "c"} {
			if i == 0 || i%3 == int(f[0]-'a') {
				tr.Write("src/"+f+".c", fmt.Sprintf("%s %d\n", f, i))
			}
		}
		if i == 0 || i == k {
			body := "fast\n"
			if i == k {
				body = "SLOW\n"
			}
			tr.Write("src/mm.c", body)
		}
		cs = append(cs, Commit{Hash: tr.Commit(fmt.Sprintf("commit %d", i)), Subject: fmt.Sprintf("commit %d", i)})
	}
	return tr.Dir, cs
}

// TestVMSearchKernelTree: a kernel search that builds each commit from
// the tree (--kernel-tree) into one build directory: it names the
// commit whose image is slow, each build after the first rebuilds only
// what changed, each build is in the builds ledger, and each boot's
// command carries the build's facts (revision, config) for its result
// file.
func TestVMSearchKernelTree(t *testing.T) {
	const n, k = 16, 11
	repo, cs := kernelTree(t, n, k)
	f := &fakeGuest{t: t}
	var facts []map[string]string
	boot := func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
		img, err := os.ReadFile(g.Kernel)
		if err != nil {
			t.Fatalf("the guest's kernel: %v", err)
		}
		if strings.Contains(string(img), "SLOW") {
			g.Append = "thp=always" // the fake guest's fast faults: a count 400 times lower
		}
		facts = append(facts, c.Facts)
		return f.Boot(ctx, g, c)
	}
	p := vmProber(t, repo, f)
	p.Boot, p.BuildCmd = boot, ""
	kb := filepath.Join(t.TempDir(), "kbuild")
	o := kbuild.Options{Tree: repo, Dir: kb, Base: kbuild.BaseTinyconfig}
	if _, err := kbuild.Prepare(o); err != nil {
		t.Fatal(err)
	}
	p.Kernel, p.Builds = &o, filepath.Join(filepath.Dir(p.Runs), BuildsFile)
	var lines []string
	p.Progress = func(s string) { lines = append(lines, s) }
	opt := Options{Runs: 2, CalibrateMin: 4, CalibrateMax: 4, VerifyRuns: 4, Now: func() time.Time { return time.Unix(0, 0) }}
	s, err := New(cs, opt, &Memory{}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopConfident || res.Top[0].Hash != cs[k].Hash || res.Top[0].P < 0.95 || res.Verify == nil || !res.Verify.Verified {
		t.Fatalf("stop %q, top %+v, verify %+v: want commit %d verified", res.Stop, res.Top, res.Verify, k)
	}
	bs, err := ReadBuilds(filepath.Dir(p.Runs))
	if err != nil || len(bs) < 3 {
		t.Fatalf("builds ledger: %d builds, %v", len(bs), err)
	}
	if bs[0].Rebuilt != 4 {
		t.Errorf("the first build rebuilt %d objects, want all 4", bs[0].Rebuilt)
	}
	// Each later build rebuilds the sources that differ from the
	// revision built before it, and only those.
	for i := 1; i < len(bs); i++ {
		b := bs[i]
		out, err := exec.Command("git", "-C", repo, "diff", "--name-only", bs[i-1].Revision, b.Revision, "--", "src").Output()
		if err != nil {
			t.Fatal(err)
		}
		if want := len(strings.Fields(string(out))); b.Rebuilt != want || b.ConfigSHA256 != bs[0].ConfigSHA256 || b.Options["SCHED_MC"] != "y" {
			t.Errorf("build %d (%s): %d objects rebuilt (want %d: the sources that differ from the build before), config %s, SCHED_MC %s",
				i+1, b.Revision[:12], b.Rebuilt, want, b.ConfigSHA256, b.Options["SCHED_MC"])
		}
	}
	if len(facts) != res.Runs.Total {
		t.Fatalf("%d boots' facts for %d boots", len(facts), res.Runs.Total)
	}
	for _, fc := range facts {
		if len(fc["kbuild.revision"]) != 40 || fc["kbuild.config.SCHED_MC"] != "y" || fc["kbuild.config_sha256"] != bs[0].ConfigSHA256 {
			t.Errorf("a boot's facts: %v", fc)
			break
		}
	}
	built := 0
	for _, l := range lines {
		if strings.Contains(l, " rebuilt") && strings.Contains(l, "build of ") {
			built++
		}
	}
	if built != len(bs) {
		t.Errorf("%d progress lines of builds for %d builds", built, len(bs))
	}
	// Nothing is left in the worktrees' directory: kbuild keeps its own.
	if ents, _ := os.ReadDir(p.Work); len(ents) > 0 {
		t.Errorf("%d worktrees in %s", len(ents), p.Work)
	}
}

// TestKernelTreeRefused: --kernel-tree without --vm, with --build, with
// another --repo, with a config that is not one, each refused in one
// line naming the flag, before anything is built.
func TestKernelTreeRefused(t *testing.T) {
	repo, cs := kernelTree(t, 3, 2)
	files := t.TempDir()
	bad := filepath.Join(files, "bad.config")
	os.WriteFile(bad, []byte("SCHED_MC=y\n"), 0o644)
	off := filepath.Join(files, "off.config")
	os.WriteFile(off, []byte("# CONFIG_DEVTMPFS is not set\n"), 0o644)
	vmr := &VMRequest{Machine: guest.Machine{Timeout: 10 * time.Minute, Accel: "tcg"}, BootsPerProbe: 2, RunsPerBoot: 2}
	for _, c := range []struct {
		mod  func(*Request)
		want string
	}{
		{func(r *Request) { r.VM = nil }, "--kernel-tree goes with --vm"},
		{func(r *Request) { r.Build = "make" }, "--build: --kernel-tree builds each commit itself"},
		{func(r *Request) { r.Repo = files }, "--kernel-tree: " + repo + " is not the search's --repo"},
		{func(r *Request) { r.Kernel.Config = "allnoconfig" }, `allnoconfig" is not defconfig, tinyconfig, running, nor a readable config file`},
		{func(r *Request) { r.Kernel.Fragments = []string{bad} }, "--kernel-config-fragment: " + bad + " line 1"},
		{func(r *Request) { r.Kernel.Fragments = []string{off} }, "turns CONFIG_DEVTMPFS off, which contend's guest needs"},
	} {
		r := Request{Repo: repo, Good: cs[0].Hash, Bad: cs[3].Hash, Dir: filepath.Join(t.TempDir(), "bs"), Measure: []string{"run", "faultme"},
			VM: vmr, Kernel: &KernelRequest{Tree: repo, Config: kbuild.BaseTinyconfig}}
		c.mod(&r)
		_, err := Start(context.Background(), r, Output{})
		if err == nil || !IsInput(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want a refusal in one line", c.want, err)
		}
	}
}
