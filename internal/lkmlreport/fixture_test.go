package lkmlreport

import (
	"context"
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"contend/internal/bisect"
	"contend/internal/campaign"
	"contend/internal/results"
	"contend/internal/textfmt"
)

// t0 is the start of every fixture's runs.
var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// machine is the environment every fixture's files share.
var machine = map[string]string{"hostname": "testbox", "cpu.model": "Test CPU @ 2.0GHz", "cpu.online": "4", "mem.total": "16384000 kB",
	"cc.version": "gcc 12.2.0", "cpu.governor": "performance"}

// kernelEnv is the environment of a side that ran kernel release rel,
// tainted as given, with a config hash of its own.
func kernelEnv(rel, tainted string) map[string]string {
	e := map[string]string{"kernel.release": rel, "kernel.version": "#1 SMP PREEMPT_DYNAMIC " + rel, "kernel.tainted": tainted,
		"kernel.config_sha256": fmt.Sprintf("%x", sha1.Sum([]byte("config of "+rel)))}
	for k, v := range machine {
		e[k] = v
	}
	return e
}

// writeFile writes a complete result file of workload's time (lower is
// better), one repetition per value in ms (kept in ns), in boot (none
// when ""), with env.
func writeFile(t *testing.T, path, workload string, env map[string]string, boot string, values []float64) {
	t.Helper()
	f := &results.File{Format: results.FormatName, Version: results.FormatVersion, Contend: "v0.9.0-test", Workload: workload, Kind: "run",
		Command: []string{"/usr/local/bin/contend", "run", workload, "--threads", "4", "-n", fmt.Sprint(len(values)), "--out", path, "-q"},
		Primary: "time", Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}}, Start: t0, Env: env}
	w, err := results.Create(path, f)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		rep := results.Rep{Index: i, Status: results.StatusOK, BootID: boot, Start: t0.Add(time.Duration(i) * time.Second),
			Metrics: results.ValuesOf(map[string]float64{"time": v * 1e6})}
		if err := w.Add(rep); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(t0.Add(time.Minute), true); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// series returns n values base, base+step, ...
func series(base, step float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = base + step*float64(i)
	}
	return out
}

// twoFiles writes a.json (release ra, values va) and b.json (rb, vb) of
// workload and returns their paths.
func twoFiles(t *testing.T, workload, ra, rb string, va, vb []float64) (string, string) {
	t.Helper()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeFile(t, a, workload, kernelEnv(ra, "0"), "", va)
	writeFile(t, b, workload, kernelEnv(rb, "512"), "", vb)
	return a, b
}

// campaignFixture makes a campaign of order (A: release 6.1.0, B:
// 6.2.0 built by contend from a revision), each boot three runs of
// mutex's time, side A near 100, side B near 110 (aa: near 100 too).
func campaignFixture(t *testing.T, order string, aa bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kc")
	p := &campaign.Plan{Format: campaign.FormatName, Version: campaign.FormatVersion, Order: order,
		Sides:   [2]campaign.Side{{Label: "A", Boot: campaign.Boot{Command: "boot-a"}, Expect: campaign.Expect{Release: "6.1.0"}}, {Label: "B", Boot: campaign.Boot{Command: "boot-b"}, Expect: campaign.Expect{Release: "6.2.0"}}},
		Command: []string{"run", "mutex", "--threads", "4", "-n", "3"}}
	if err := campaign.WritePlan(dir, p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, campaign.BootsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	envB := kernelEnv("6.2.0", "0")
	envB["kbuild.revision"] = fmt.Sprintf("%x", sha1.Sum([]byte("revision B")))
	envB["kbuild.config_sha256"] = "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0"
	for s := 0; s < len(order); s++ {
		boot := fmt.Sprintf("boot%d", s)
		rel := filepath.Join(campaign.BootsDir, fmt.Sprintf("%02d-%c.jsonl", s+1, order[s]))
		env, base := kernelEnv("6.1.0", "0"), 100.0
		if order[s] == 'B' {
			env = envB
			if !aa {
				base = 110
			}
		}
		writeFile(t, filepath.Join(dir, rel), "mutex", env, boot, []float64{base + float64(s)/4 - 1, base + float64(s)/4, base + float64(s)/4 + 1})
		start := t0.Add(time.Duration(s) * time.Hour)
		for _, e := range []campaign.Event{
			{Time: start, Event: campaign.EvReboot, Slot: s},
			{Time: start.Add(time.Minute), Event: campaign.EvStart, Slot: s, BootID: boot},
			{Time: start.Add(2 * time.Minute), Event: campaign.EvDone, Slot: s, BootID: boot, Result: rel, OK: 3},
		} {
			if err := campaign.Append(dir, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// fakeProber measures the commits of a bisect fixture: mutex's time,
// 100 before the culprit and 100+shift from it on, noise of SD 1; each
// batch is a result file in runs/ named as the probers name theirs.
type fakeProber struct {
	t       *testing.T
	runs    string
	culprit int
	shift   float64
	index   map[string]int
	rng     *rand.Rand
	seq     int
}

type fakeBuilt struct {
	p *fakeProber
	c bisect.Commit
}

func (p *fakeProber) Build(_ context.Context, c bisect.Commit) (bisect.Built, error) {
	return &fakeBuilt{p, c}, nil
}

func (b *fakeBuilt) Measure(_ context.Context, n int) ([]float64, error) {
	p := b.p
	i := p.index[b.c.Hash]
	vs := make([]float64, n)
	for k := range vs {
		vs[k] = 100 + p.rng.NormFloat64()
		if i >= p.culprit {
			vs[k] += p.shift
		}
	}
	p.seq++
	rel := "6.1.0"
	if i >= p.culprit {
		rel = "6.1.0+"
	}
	writeFile(p.t, filepath.Join(p.runs, fmt.Sprintf("%03d-%s.jsonl", p.seq, textfmt.Commit(b.c.Hash))), "mutex", kernelEnv(rel, "0"), "", vs)
	return vs, nil
}

func (b *fakeBuilt) Close() error { return nil }

// bisectFixture runs a search over n commits ("commit 0" .. "commit
// n-1", commit culprit shifting the time by shift) into a directory as
// 'contend bisect' leaves it: its plan, its ledger, its runs.
func bisectFixture(t *testing.T, n, culprit int, shift float64) (string, *bisect.Result) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bs")
	var commits []bisect.Commit
	index := map[string]int{}
	for i := range n {
		h := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprint("commit ", i))))
		commits = append(commits, bisect.Commit{Hash: h, Subject: fmt.Sprint("commit ", i)})
		index[h] = i
	}
	opt := bisect.Options{Runs: 5, CalibrateMin: 10, CalibrateMax: 20, Confidence: 0.95, VerifyRuns: 10}
	plan := &bisect.Plan{Repo: "/src/linux", Good: "v6.1", Bad: "v6.2-rc1", Commits: commits, Build: "make",
		Measure: []string{"run", "mutex", "--threads", "4"}, Metric: "time", Options: bisect.PlanOptionsOf(opt), Created: t0}
	if err := bisect.Create(dir, plan); err != nil {
		t.Fatal(err)
	}
	p := &fakeProber{t: t, runs: filepath.Join(dir, bisect.RunsDir), culprit: culprit, shift: shift, index: index, rng: rand.New(rand.NewPCG(1, 2))}
	s, err := bisect.New(commits, opt, bisect.Ledger{Dir: dir}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}
