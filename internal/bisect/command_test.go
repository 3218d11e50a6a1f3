package bisect

import (
	"bytes"
	"contend/internal/guest"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/kbuild"
)

// okRequest is a request that Start accepts on repo (kernelRepo's), into
// dir.
func okRequest(repo, dir string) Request {
	return Request{Repo: repo, Good: "HEAD~3", Bad: "HEAD", Build: "cat boot.txt", Dir: dir,
		Measure: []string{"exec", "--", "./prog"}, Options: Options{Runs: 5, CalibrateMin: 10, CalibrateMax: 60, Confidence: 0.95, Alpha: 0.05, VerifyRuns: 10}}
}

// TestStartRefuses: every refused request is an InputError naming what
// is wrong, and nothing is written: the measurement, the strings that
// reach files, the ends and the range, the prior, the options, and a
// kernel search's guest and the flags that go with --vm (what 'contend
// bisect' and 'bisect --vm' refuse with exit 2).
func TestStartRefuses(t *testing.T) {
	repo, _ := kernelRepo(t, 3, 2)
	dir := filepath.Join(t.TempDir(), "bs")
	prior := filepath.Join(t.TempDir(), "prior")
	if err := os.WriteFile(prior, []byte("HEAD x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vmReq := func(f func(*VMRequest)) func(*Request) {
		return func(r *Request) {
			r.Measure = []string{"run", "faultme", "--mem", "64MiB"}
			r.VM = &VMRequest{Machine: guest.Machine{Timeout: 10 * time.Minute, Accel: "auto"}, BootsPerProbe: 3, RunsPerBoot: 5}
			f(r.VM)
		}
	}
	for _, c := range []struct {
		edit func(*Request)
		want string
	}{
		{func(r *Request) { r.Measure = nil }, "give the measurement after --"},
		{func(r *Request) { r.Measure = []string{"sweep", "mutex"} }, `'run' or 'exec', not "sweep"`},
		{func(r *Request) { r.Measure = []string{"run", "mutex", "-n", "3"} }, "must not set -n"},
		{func(r *Request) { r.Good = "" }, "--good REV and --bad REV are needed"},
		{func(r *Request) { r.Good = "nosuch" }, `--good: "nosuch" is not a commit`},
		{func(r *Request) { r.Good, r.Bad = "HEAD", "HEAD~3" }, "is not an ancestor of --bad"},
		{func(r *Request) { r.Good = "HEAD~1" }, "--bad is the only commit after --good"},
		{func(r *Request) { r.Repo = t.TempDir() }, "is not a git repository"},
		{func(r *Request) { r.Build = "make\x1b[2J" }, "--build"},
		{func(r *Request) { r.Measure = append(r.Measure, "a\x07") }, "the measurement"},
		{func(r *Request) { r.Prior = prior }, `--prior: line 1: weight "x" is not accepted`},
		{func(r *Request) { r.Options.BudgetRuns = 50 }, "--budget-runs: 50 is not accepted; accepted: 0 (the default, from the range's size) or at least 130"},
		{func(r *Request) { r.Options.CalibrateMin, r.Options.CalibrateMax = 30, 20 }, "--calibrate-max: 20 is below --calibrate 30"},
		{func(r *Request) { r.Stray = "vm-cpus" }, "--vm-cpus goes with --vm"},
		{vmReq(func(v *VMRequest) { v.RunsSet = true }), "--runs: with --vm the repetitions are boots"},
		{vmReq(func(v *VMRequest) { v.CPUs = 100000 }), "--vm-cpus: 100000 is not accepted"}, // the ranges: guest.TestMachineCheck
		{vmReq(func(*VMRequest) {}), ""}, // accepted up to its measurement below
		{func(r *Request) { vmReq(func(*VMRequest) {})(r); r.Build = "" }, "--build: a --vm search needs a build command"},
		{func(r *Request) { vmReq(func(*VMRequest) {})(r); r.Contend = "bin/contend" }, `--contend: "bin/contend": with --vm`},
		{func(r *Request) { vmReq(func(*VMRequest) {})(r); r.Measure = []string{"exec", "--", "./prog"} }, "not exec"},
	} {
		r := okRequest(repo, dir)
		c.edit(&r)
		if c.want == "" {
			if _, err := r.vmPlan(); err != nil || r.Options.Runs != 3 {
				t.Errorf("a --vm request: %v, runs %d; want accepted, a probe of 3 boots", err, r.Options.Runs)
			}
			continue
		}
		_, err := Start(context.Background(), r, Output{})
		var ie *InputError
		if !errors.As(err, &ie) || !IsInput(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want one line, an InputError with %q", r, err, c.want)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("a refused search made %s", dir)
	}
}

// TestVerdictExit: git bisect run's exit statuses.
func TestVerdictExit(t *testing.T) {
	for _, c := range []struct {
		v    Verdict
		want int
	}{
		{Verdict{Verdict: VerdictGood}, 0},
		{Verdict{Verdict: VerdictBad}, 1},
		{Verdict{Verdict: VerdictSkip}, 125},
		{Verdict{Verdict: VerdictSkip, Stop: StopNoDifference}, 128},
	} {
		if got := c.v.Exit(); got != c.want {
			t.Errorf("%+v: exit %d, want %d", c.v, got, c.want)
		}
	}
}

// TestStepAtTheEnds: a step on --good or --bad answers without a probe
// (good, bad; no commit named) and writes nothing; on a commit off the
// range it fails.
func TestStepAtTheEnds(t *testing.T) {
	repo, cs := kernelRepo(t, 3, 2)
	dir := filepath.Join(t.TempDir(), "bs")
	r := okRequest(repo, dir)
	r.Good, r.Bad = cs[0].Hash, cs[3].Hash
	checkout := func(rev string) {
		t.Helper()
		if out, err := exec.Command("git", "-C", repo, "checkout", "-q", rev).CombinedOutput(); err != nil {
			t.Fatalf("git checkout %s: %v\n%s", rev, err, out)
		}
	}
	for _, c := range []struct {
		at   int
		want string
		exit int
	}{{3, VerdictBad, 1}, {0, VerdictGood, 0}} {
		checkout(cs[c.at].Hash)
		v, hash, err := Step(context.Background(), r, 30)
		if err != nil || v.Verdict != c.want || hash != "" || v.Exit() != c.exit {
			t.Errorf("HEAD at commit %d: %+v %q %v; want %s, exit %d", c.at, v, hash, err, c.want, c.exit)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("a step at an end made %s", dir)
	}
	r.Bad = cs[2].Hash
	checkout(cs[3].Hash)
	if _, _, err := Step(context.Background(), r, 30); err == nil || !strings.Contains(err.Error(), "is not on the first-parent line") {
		t.Errorf("HEAD after --bad: %v", err)
	}
}

// TestStepPlan: the first step creates the search, the next ones add to
// it, and a search of another range, build or measurement is refused.
func TestStepPlan(t *testing.T) {
	_, cs := kernelRepo(t, 3, 2)
	dir := filepath.Join(t.TempDir(), "bs")
	want := &Plan{Repo: "r", Good: "g", Bad: "b", Commits: cs, Build: "make", Measure: []string{"exec", "--", "./prog"}, Created: time.Now().UTC()}
	p, evs, err := stepPlan(dir, want)
	if err != nil || p != want || evs != nil {
		t.Fatalf("first step: %v %v %v", p, evs, err)
	}
	if p, _, err = stepPlan(dir, want); err != nil || p.Build != "make" || len(p.Commits) != 4 {
		t.Fatalf("second step: %+v %v", p, err)
	}
	for name, edit := range map[string]func(*Plan){
		"build":       func(p *Plan) { p.Build = "make -j2" },
		"measurement": func(p *Plan) { p.Measure = []string{"exec", "--", "./other"} },
		"range":       func(p *Plan) { p.Commits = p.Commits[1:] },
	} {
		other := *want
		edit(&other)
		if _, _, err := stepPlan(dir, &other); err == nil || !strings.Contains(err.Error(), "another range, build or measurement") {
			t.Errorf("another %s: %v", name, err)
		}
	}
}

// TestStatusReadsTheLedger: the status of a search is its ledger's
// result (the same top candidate and runs as the search that wrote it);
// a kernel search's counts boots.
func TestStatusReadsTheLedger(t *testing.T) {
	cs, _ := simCommits(64)
	for _, vmp := range []*VMPlan{nil, {Machine: guest.Machine{CPUs: 1, MemMiB: 512, Timeout: time.Minute}, RunsPerBoot: 3}} {
		dir := t.TempDir()
		if err := Create(dir, &Plan{Repo: "r", Good: "g", Bad: "b", Commits: cs, Measure: []string{"run", "mutex"}, Metric: "ops", VM: vmp}); err != nil {
			t.Fatal(err)
		}
		s, _ := simSearch(t, 3, 64, 37, 2, Options{VerifyRuns: -1}, Ledger{Dir: dir}, nil)
		want, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got, err := Status(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Top) == 0 || got.Top[0].Index != want.Top[0].Index || got.Runs != want.Runs || got.Stop != want.Stop {
			t.Errorf("status: top %+v runs %+v stop %q; the search: top %+v runs %+v stop %q", got.Top, got.Runs, got.Stop, want.Top, want.Runs, want.Stop)
		}
		if unit := map[bool]string{true: "boots", false: ""}[vmp != nil]; got.Unit != unit {
			t.Errorf("VM %v: unit %q, want %q", vmp != nil, got.Unit, unit)
		}
	}
	if _, err := Status(t.TempDir()); err == nil {
		t.Error("the status of a directory without a search: no error")
	}
}

// TestStatusSumsUpBuilds: the status of a search that builds its
// kernels (--kernel-tree) sums up its builds ledger, and its text says
// so in one line; a damaged builds ledger is refused naming it; a
// search without kernel builds says nothing of builds.
func TestStatusSumsUpBuilds(t *testing.T) {
	cs, _ := simCommits(8)
	dir := t.TempDir()
	vmp := &VMPlan{Machine: guest.Machine{CPUs: 1, MemMiB: 512, Timeout: time.Minute}, RunsPerBoot: 3}
	if err := Create(dir, &Plan{Repo: "r", Good: "g", Bad: "b", Commits: cs, Measure: []string{"run", "faultme"}, VM: vmp,
		Kernel: &KernelPlan{Config: "tinyconfig", BuildDir: filepath.Join(dir, KbuildDir)}}); err != nil {
		t.Fatal(err)
	}
	res, err := Status(dir)
	if err != nil || res.Builds != nil {
		t.Fatalf("no build yet: %+v, %v", res.Builds, err)
	}
	for i, b := range []struct {
		secs float64
		objs int
		kept bool
	}{{612, 2100, false}, {48, 12, false}, {0, 0, true}, {55, 30, false}} {
		k := &kbuild.Kernel{Revision: cs[i].Hash, BuildSeconds: b.secs, Rebuilt: b.objs, Cached: b.kept}
		if err := kbuild.Append(filepath.Join(dir, BuildsFile), k, ""); err != nil {
			t.Fatal(err)
		}
	}
	res, err = Status(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := kbuild.Summary{Builds: 3, Kept: 1, FirstSeconds: 612, FirstRebuilt: 2100, MedianSeconds: 51.5, MaxSeconds: 55, MedianRebuilt: 21, MaxRebuilt: 30,
		TotalSeconds: 715, TotalRebuilt: 2142}
	if res.Builds == nil || *res.Builds != want {
		t.Errorf("builds %+v, want %+v", res.Builds, want)
	}
	var b strings.Builder
	if err := Write(&b, res, "text"); err != nil {
		t.Fatal(err)
	}
	if line := "kernel builds: 3 (and 1 image kept from earlier builds): the first 10.2 min, 2100 objects rebuilt; the 2 after it: time median 51.5 s, max 55.0 s, objects rebuilt median 21, max 30; total 11.9 min\n"; !strings.Contains(b.String(), line) {
		t.Errorf("the text does not hold %q:\n%s", line, b.String())
	}
	b.Reset()
	if err := Write(&b, res, "json"); err != nil || !strings.Contains(b.String(), `"kernel_builds": {`) {
		t.Errorf("the JSON: %v\n%s", err, b.String())
	}
	os.WriteFile(filepath.Join(dir, BuildsFile), []byte("garbage\n"), 0o644)
	if _, err := Status(dir); err == nil || !strings.Contains(err.Error(), BuildsFile+" is damaged: line 1") {
		t.Errorf("a damaged builds ledger: %v", err)
	}
}

// TestStoppedError: a search whose context ends is Stopped in
// its directory, and says how to resume it.
func TestStoppedError(t *testing.T) {
	err := error(&Stopped{Dir: "/d"})
	var st *Stopped
	if !errors.As(err, &st) || IsInput(err) || !strings.Contains(err.Error(), "'contend bisect resume /d'") {
		t.Errorf("Stopped: %v", err)
	}
}

// TestPrefixed: each line of a write gets the prefix; nil writes
// nowhere.
func TestPrefixed(t *testing.T) {
	var b bytes.Buffer
	p := prefixed{&b, "bisect: "}
	if n, err := p.Write([]byte("one\ntwo\n")); n != 8 || err != nil {
		t.Fatal(n, err)
	}
	if b.String() != "bisect: one\nbisect: two\n" {
		t.Errorf("%q", b.String())
	}
	if n, err := (prefixed{nil, "x"}).Write([]byte("a\n")); n != 2 || err != nil {
		t.Error(n, err)
	}
}
