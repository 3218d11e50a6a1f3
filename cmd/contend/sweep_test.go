package main

import (
	"encoding/csv"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"contend/internal/results"
)

func TestSweepFaultmeSmall(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "s.json")
	r := runCLI(t, "sweep", "faultme", "--mem", "1MiB", "--threads", "1,2,4", "-n", "2", "--warmup", "1", "--seed", "7", "--out", out, "--label", "tiny", "--full")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"faultme sweep over threads", "fixed: mem=1MiB", "shuffled (seed 7)", "throughput (", "speedup", "USL fit, 6 repetitions at 3 values of threads", "Amdahl fit"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != "sweep" || !f.Complete || f.Label != "tiny" || len(f.Configs) != 3 {
		t.Fatalf("header: kind %q complete %v label %q configs %d", f.Kind, f.Complete, f.Label, len(f.Configs))
	}
	if s := f.Sweep; s == nil || strings.Join(s.Params, ",") != "threads" || s.Order != "shuffled" || s.Seed != 7 || s.Rounds != 2 || s.WarmupRounds != 1 || s.Throughput != "throughput" {
		t.Fatalf("sweep info %+v", f.Sweep)
	}
	for i, want := range []string{"threads=1", "threads=2", "threads=4"} {
		if f.Configs[i].Name != want {
			t.Errorf("config %d named %q, want %q", i, f.Configs[i].Name, want)
		}
		if v, _ := f.ParamValue(i, "mem"); v != "1048576" {
			t.Errorf("config %d mem %q", i, v)
		}
	}
	if m, ok := f.Metric("throughput"); !ok || m.Unit != "pages/s" || m.Better != "higher" {
		t.Errorf("throughput metric %+v", m)
	}
	// 3 rounds (1 warm-up) of 3 points; each round every point once.
	if len(f.Reps) != 9 {
		t.Fatalf("%d repetitions, want 9", len(f.Reps))
	}
	rounds := map[int][]int{}
	for i, rep := range f.Reps {
		if rep.Index != i || rep.Status != results.StatusOK {
			t.Fatalf("rep %d: index %d status %s %s", i, rep.Index, rep.Status, rep.Error)
		}
		if rep.Warmup != (rep.Round < 0) {
			t.Errorf("rep %d: warmup %v in round %d", i, rep.Warmup, rep.Round)
		}
		if i > 0 && rep.Round < f.Reps[i-1].Round {
			t.Errorf("rounds out of order at rep %d", i)
		}
		rounds[rep.Round] = append(rounds[rep.Round], rep.Config)
		if rep.Metrics.Get("pages") != 256 || rep.Metrics.Get("throughput") <= 0 {
			t.Errorf("rep %d: pages %v throughput %v", i, rep.Metrics.Get("pages"), rep.Metrics.Get("throughput"))
		}
	}
	for r, cs := range rounds {
		sort.Ints(cs)
		if len(cs) != 3 || cs[0] != 0 || cs[1] != 1 || cs[2] != 2 {
			t.Errorf("round %d ran configs %v", r, cs)
		}
	}
	for c := 0; c < 3; c++ {
		if n := f.Counts(c)[results.StatusOK]; n != 2 {
			t.Errorf("config %d: %d measured ok, want 2", c, n)
		}
	}

	s := runCLI(t, "show", out)
	if s.code != 0 || !strings.Contains(s.stdout, "faultme sweep over threads") || !strings.Contains(s.stdout, "USL fit") {
		t.Errorf("show: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	cv := runCLI(t, "show", "--format", "csv", out)
	rows, err := csv.NewReader(strings.NewReader(cv.stdout)).ReadAll()
	if cv.code != 0 || err != nil || len(rows) != 4 || rows[3][0] != "threads=4" {
		t.Errorf("show --format csv: exit %d err %v rows %d\n%s", cv.code, err, len(rows), cv.stdout)
	}
}

func TestSweepCSVAndParam(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "sweep", "faultme", "--threads", "2", "--param", "mem=256KiB..512KiBx2", "-n", "1", "--order", "fixed", "--format", "csv", "-q", "--out", filepath.Join(dir, "m.json"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("csv: %v, %d rows\n%s", err, len(rows), r.stdout)
	}
	// One value of --threads is fixed: only mem is swept.
	if rows[0][0] != "point" || rows[0][1] != "mem" || rows[0][2] != "n" || rows[1][0] != "mem=256KiB" || rows[2][0] != "mem=512KiB" {
		t.Errorf("rows %v", rows)
	}
	if r.stderr != "" {
		t.Errorf("-q printed %q", r.stderr)
	}
}

func TestSweepBadUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, "what to sweep?"},
		{[]string{"--threads", "1,0"}, "--threads: 0 is out of range"},
		{[]string{"--threads", "1..8"}, "needs a step"},
		{[]string{"--threads", "1,1"}, "given twice"},
		{[]string{"--threads", "1..9999+1"}, "more than 256"},
		{[]string{"--threads", "1,2", "--param", "threads=4"}, "given twice"},
		{[]string{"--param", "nosuch=1,2"}, `no parameter "nosuch"`},
		{[]string{"--param", "threads"}, "NAME=LIST"},
		{[]string{"--threads", "2", "--mem", "1MiB,2MiB"}, "--param mem=1MiB,2MiB"},
		{[]string{"--threads", "1,2", "--stride", "8MiB"}, "point threads=1: --stride"},
		{[]string{"--threads", "2"}, "what to sweep"},
		{[]string{"--threads", "1,2", "--order", "random"}, `--order: "random"`},
		{[]string{"--threads", "1,2", "--seed", "x"}, `--seed: "x"`},
		{[]string{"--threads", "1,2", "--format", "original"}, `--format: "original" is not accepted`},
		{[]string{"--threads", "1,2", "-n", "0"}, "--runs: 0 is out of range"},
		{[]string{"--threads", "1,2", "extra"}, "no positional arguments"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := chdirTemp(t)
			// The base --mem unless the case gives its own (a flag
			// given twice with two values is refused).
			base := []string{"sweep", "faultme", "--mem", "1MiB"}
			if slices.Contains(c.args, "--mem") {
				base = base[:2]
			}
			assertUsageError(t, runCLI(t, append(base, c.args...)...), c.want, dir, nil)
		})
	}
	r := runCLI(t, "sweep", "nosuch")
	if r.code != 2 || !strings.Contains(r.stderr, `no workload "nosuch"`) {
		t.Errorf("unknown workload: %d %q", r.code, r.stderr)
	}
}

func TestSweepOversubscribeWarning(t *testing.T) {
	dir := chdirTemp(t)
	t.Setenv("CONTEND_FAKE_LIMITS", "cpus=1")
	r := runCLI(t, "sweep", "faultme", "--mem", "256KiB", "--threads", "1,2", "-n", "1", "--out", filepath.Join(dir, "o.json"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning: threads=2 oversubscribes the 1 online CPUs") || strings.Contains(r.stderr, "threads=1 oversubscribes") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

func TestCompareSweepFiles(t *testing.T) {
	dir := chdirTemp(t)
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, out := range []string{a, b} {
		if r := runCLI(t, "sweep", "faultme", "--mem", "1MiB", "--threads", "1,2,3", "-n", "2", "--out", out, "--quiet"); r.code != 0 {
			t.Fatalf("sweep: %d %s", r.code, r.stderr)
		}
	}
	r := runCLI(t, "compare", a, b)
	if r.code != 0 || !strings.Contains(r.stdout, "faultme curve, B against A: throughput") || !strings.Contains(r.stdout, "USL fit shift") {
		t.Fatalf("compare of sweeps: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("line of %d columns: %q", len([]rune(line)), line)
		}
	}
	if r := runCLI(t, "compare", "--format", "csv", a, b); r.code != 2 {
		t.Errorf("compare --format csv of sweeps: exit %d", r.code)
	}
	if r := runCLI(t, "compare", a+":threads=2", b+":threads=2"); r.code != 0 || !strings.Contains(r.stdout, "faultme time:") {
		t.Errorf("compare of one point: %d %s %s", r.code, r.stdout, r.stderr)
	}
}
