package bisect

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/guest"
	"contend/internal/results"
	"contend/internal/vm"
)

// kernelRepo makes a git repository of n+1 commits (0 the good end)
// whose boot.txt names a fake bzImage and a command line: thp=never
// before commit k, thp=always from it on, and 'panic' at the commits
// in broken. It returns the repository and its commits.
func kernelRepo(t *testing.T, n, k int, broken ...int) (string, []Commit) {
	t.Helper()
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(repo, 0o755)
	img := make([]byte, 0x1000)
	copy(img[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(img[0x20e:], 0x300)
	copy(img[0x500:], "6.1.0-test (test) #1 SMP\x00")
	bz := filepath.Join(dir, "bzImage")
	if err := os.WriteFile(bz, img, 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	git("init", "-q")
	var cs []Commit
	for i := 0; i <= n; i++ {
		thp := "never"
		if i >= k {
			thp = "always"
		}
		for _, b := range broken {
			if b == i {
				thp += " panic"
			}
		}
		os.WriteFile(filepath.Join(repo, "boot.txt"), []byte(fmt.Sprintf("building...\nkernel: %s\nappend: thp=%s\n", bz, thp)), 0o644)
		os.WriteFile(filepath.Join(repo, "n.txt"), []byte(fmt.Sprintln(i)), 0o644)
		git("add", ".")
		git("commit", "-q", "-m", fmt.Sprintf("commit %d", i))
		cs = append(cs, Commit{Hash: git("rev-parse", "HEAD"), Subject: fmt.Sprintf("commit %d", i)})
	}
	return repo, cs
}

// fakeGuest is a vm Boot: a guest whose command line says 'panic'
// panics, one with thp=always takes about 40 faults a run, else about
// 16384; each run's count differs a little from the last.
type fakeGuest struct {
	t     *testing.T
	boots int
	runs  [][]float64 // the values of every boot's runs
	args  [][]string
	guest []vm.Guest
	qemu  bool // fail as QEMU itself
	exit  int  // the command's exit status
}

func (f *fakeGuest) Boot(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
	f.boots++
	f.args = append(f.args, c.Args)
	f.guest = append(f.guest, g)
	if f.qemu {
		return nil, &vm.Fault{Kind: vm.FaultQEMU, Msg: "vm: qemu-system-x86_64 is missing"}
	}
	if strings.Contains(g.Append, "panic") {
		return nil, &vm.Fault{Kind: vm.FaultPanic, Msg: "the guest's kernel panicked: Kernel panic - not syncing: VFS: Unable to mount root fs"}
	}
	if f.exit != 0 {
		return &vm.Result{Accel: vm.AccelTCG, Report: vm.Report{Exit: f.exit, Error: "contend: --bogus: unknown flag"}}, nil
	}
	base := 16384.0
	if strings.Contains(g.Append, "thp=always") {
		base = 40
	}
	n := 0
	for i, a := range c.Args {
		if a == "--runs" {
			fmt.Sscan(c.Args[i+1], &n)
		}
	}
	file := &results.File{Kind: "run", Workload: "faultme", Complete: true, Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "faults", Unit: "count", Better: "either"}},
		Configs: []results.Config{{}}, Env: map[string]string{"vm.accel": vm.AccelTCG}}
	var xs []float64
	for i := 0; i < n; i++ {
		x := base + float64((f.boots*7+i*3)%11)
		xs = append(xs, x)
		file.Reps = append(file.Reps, results.Rep{Index: i, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": 1e6, "faults": x})})
	}
	f.runs = append(f.runs, xs)
	b, err := results.Marshal(file)
	if err != nil {
		f.t.Fatal(err)
	}
	return &vm.Result{Accel: vm.AccelTCG, Report: vm.Report{Release: "6.1.0-test"}, Output: b}, nil
}

func vmProber(t *testing.T, repo string, f *fakeGuest) *VM {
	d := t.TempDir()
	for _, s := range []string{"work", "runs", "logs", "vm"} {
		os.MkdirAll(filepath.Join(d, s), 0o755)
	}
	return &VM{Repo: repo, Work: filepath.Join(d, "work"), Runs: filepath.Join(d, "runs"), Logs: filepath.Join(d, "logs"), Consoles: filepath.Join(d, "vm"),
		BuildCmd: "cat boot.txt", Measure: []string{"run", "faultme", "--mem", "64MiB"}, Metric: "faults",
		Plan: VMPlan{Machine: guest.Machine{CPUs: 1, MemMiB: 512, Timeout: time.Minute}, RunsPerBoot: 3}, Boot: f.Boot}
}

// TestVMProberBootValues: a measurement of n is n boots of the kernel the
// build printed, with its command line, each running the measurement
// with --runs-per-boot runs; the value of each boot is the geometric mean
// of its runs, one result file a boot is kept, and the worktree goes on
// Close.
func TestVMProberBootValues(t *testing.T) {
	repo, cs := kernelRepo(t, 2, 2)
	f := &fakeGuest{t: t}
	p := vmProber(t, repo, f)
	b, err := p.Build(context.Background(), cs[2])
	if err != nil {
		t.Fatal(err)
	}
	xs, err := b.Measure(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 3 || f.boots != 3 {
		t.Fatalf("%d values of %d boots, want 3 of 3", len(xs), f.boots)
	}
	for i, x := range xs {
		r := f.runs[i]
		want := math.Cbrt(r[0] * r[1] * r[2])
		if len(r) != 3 || math.Abs(x-want) > 1e-9*want {
			t.Errorf("boot %d: value %v of runs %v, want their geometric mean %v", i+1, x, r, want)
		}
		g := f.guest[i]
		if !strings.HasSuffix(g.Kernel, "bzImage") || g.Append != "thp=always" || g.CPUs != 1 || g.MemMiB != 512 || g.Timeout != time.Minute {
			t.Errorf("boot %d: guest %+v", i+1, g)
		}
	}
	want := "run --runs 3 --out " + vm.GuestOut + " --quiet faultme --mem 64MiB"
	if got := strings.Join(f.args[0], " "); got != want {
		t.Errorf("the guest's command %q, want %q", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(p.Runs, "*.jsonl"))
	if len(files) != 3 {
		t.Errorf("%d result files, want one a boot", len(files))
	}
	if w := WhereOf(p.Runs); !strings.HasPrefix(w, "in a VM (TCG)") {
		t.Errorf("WhereOf: %q", w)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(p.Work); len(ents) != 0 {
		t.Errorf("%d worktrees left", len(ents))
	}
}

// TestVMProberFaults: a guest that panics makes the commit a skip with
// the fault's one line; QEMU's own failure, and a measurement refused in
// the guest (exit 2), end the search instead; a build that names no
// kernel, or a file that is not one, is a skip.
func TestVMProberFaults(t *testing.T) {
	repo, cs := kernelRepo(t, 2, 2, 1)
	ctx := context.Background()
	p := vmProber(t, repo, &fakeGuest{t: t})
	b, err := p.Build(ctx, cs[1])
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Measure(ctx, 2)
	var se *SkipError
	if !errors.As(err, &se) || !strings.Contains(se.Reason, "Kernel panic - not syncing") || !strings.Contains(se.Reason, "(panic)") || strings.Contains(se.Reason, "\n") {
		t.Errorf("a panic: %v, want a one-line skip with the fault", err)
	}
	b.Close()
	for name, f := range map[string]*fakeGuest{"qemu": {t: t, qemu: true}, "refused": {t: t, exit: 2}} {
		p := vmProber(t, repo, f)
		b, err := p.Build(ctx, cs[2])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Measure(ctx, 1); err == nil || errors.As(err, &se) {
			t.Errorf("%s: %v, want an error that is not a skip", name, err)
		}
		b.Close()
	}
	p = vmProber(t, repo, &fakeGuest{t: t, exit: 1})
	b, _ = p.Build(ctx, cs[2])
	if _, err := b.Measure(ctx, 1); !errors.As(err, &se) || !strings.Contains(se.Reason, "exit 1") {
		t.Errorf("a failed command: %v, want a skip", err)
	}
	b.Close()
	for build, want := range map[string]string{
		"echo no kernel here":       `no "kernel: PATH" line`,
		"echo kernel: boot.txt":     "not an x86 kernel image",
		"echo kernel: missing":      "is not a file",
		"echo kernel: x; exit 3":    "the build failed (exit status 3)",
		"printf 'kernel: a\\tb\\n'": "control character",
	} {
		p := vmProber(t, repo, &fakeGuest{t: t})
		p.BuildCmd = build
		_, err := p.Build(ctx, cs[1])
		if !errors.As(err, &se) || !strings.Contains(se.Reason, want) {
			t.Errorf("build %q: %v, want a skip with %q", build, err, want)
		}
		if ents, _ := os.ReadDir(p.Work); len(ents) != 0 {
			t.Errorf("build %q: a worktree left", build)
		}
	}
}

// TestVMSearch: a whole search through the VM prober with boots as the
// unit names the planted commit, skips the commit whose guest panics
// (its reason the fault's line) and verifies the culprit.
func TestVMSearch(t *testing.T) {
	const n, k = 16, 11
	repo, cs := kernelRepo(t, n, k, 5)
	f := &fakeGuest{t: t}
	p := vmProber(t, repo, f)
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
	if f.boots != res.Runs.Total {
		t.Errorf("%d boots for %d values", f.boots, res.Runs.Total)
	}
	for _, sk := range res.Skipped {
		if sk.Index != 5 || !strings.Contains(sk.Reason, "panicked") {
			t.Errorf("skipped %+v", sk)
		}
	}
}

// TestVMPlanResumes: the VM of a kernel search is in its plan, so that
// 'bisect resume' boots the same guests.
func TestVMPlanResumes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bs")
	want := VMPlan{Machine: guest.Machine{CPUs: 1, MemMiB: 1024, Timeout: 2 * time.Minute, Accel: vm.AccelTCG}, RunsPerBoot: 3}
	v := want
	if err := Create(dir, &Plan{Repo: "/r", Commits: []Commit{{Hash: "a"}, {Hash: "b"}, {Hash: "c"}}, Measure: []string{"run", "faultme"}, VM: &v}); err != nil {
		t.Fatal(err)
	}
	p, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.VM == nil || *p.VM != want {
		t.Errorf("the plan's VM %+v, want %+v", p.VM, want)
	}
}
