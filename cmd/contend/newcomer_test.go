package main

import (
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/results"
	"contend/internal/summary"
)

// The newcomer's path (issue 17): defaults that meet the statistics and
// messages that blame the right thing.

func TestDefaultRunsGiveAnInterval(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "d.json")
	r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "64KiB", "--out", out, "-q")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != DefaultRuns || DefaultRuns < 6 {
		t.Errorf("%d repetitions by default (DefaultRuns %d), want at least 6", len(f.Reps), DefaultRuns)
	}
	if strings.Contains(r.stdout, "n too small") || strings.Contains(r.stdout, "need at least") {
		t.Errorf("the default run has no interval:\n%s", r.stdout)
	}
}

func TestRunHelpShowsCommonFlags(t *testing.T) {
	r := runCLI(t, "run", "--help")
	for _, want := range []string{"--runs value, -n value", "--out", "--timeout", "(default: 6)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
	r = runCLI(t, "run", "faultme", "--help")
	if !strings.Contains(r.stdout, "95% interval") {
		t.Errorf("run faultme --help does not say why -n defaults to 6")
	}
}

func TestMisplacedWorkloadIsAccepted(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "m.json")
	r := runCLI(t, "run", "--threads", "1", "-q", "faultme", "--mem", "64KiB", "-n", "1", "--out", out)
	if r.code != 0 {
		t.Fatalf("run --threads 1 -q faultme: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "threads=1 mem=64KiB") {
		t.Errorf("the flags before the workload were lost:\n%s", r.stdout)
	}
	// A flag's value that happens to be a workload name stays a value.
	if got := workloadFirst(runCommand(), []string{"contend", "run", "--label", "osim", "faultme"}); strings.Join(got, " ") != "contend run faultme --label osim" {
		t.Errorf("workloadFirst = %q", got)
	}
}

func TestNewcomerMessages(t *testing.T) {
	dir := chdirTemp(t)
	w, b := seeds+"rostedt-without.json", seeds+"rostedt-with.json"
	for _, c := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"reversed range", []string{"sweep", "faultme", "--threads", "8..1"}, "", `"8..1" is reversed: a range goes up, such as 1..8+1`},
		{"reversed range with step", []string{"sweep", "faultme", "--threads", "8..1x2"}, "", `"8..1x2" is reversed`},
		{"threshold 2", []string{"compare", "--threshold", "2", w, b}, "", "did you mean 2%?"},
		{"mem beyond the address space", []string{"run", "faultme", "--threads", "1", "--mem", "2TiB"}, "address-gap=1099511627776",
			"--mem: 2TiB does not fit in the address space: the largest free range a process can count on here is 1TiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("CONTEND_FAKE_LIMITS", c.env)
			}
			before := listFiles(t, dir)
			assertUsageError(t, runCLI(t, c.args...), c.want, dir, before)
		})
	}
}

func TestMemBeyondHalfTheAddressSpaceIsRefused(t *testing.T) {
	dir := chdirTemp(t)
	// 100TiB is within the parameter's range (128TiB of user space) but
	// more than any process can count on: refused before anything runs,
	// on any machine, also with --force.
	assertUsageError(t, runCLI(t, "run", "faultme", "--threads", "1", "--mem", "100TiB", "--force", "-n", "1"), "--mem: 100TiB does not fit in the address space", dir, listFiles(t, dir))
}

func TestDecimalSizeIsSaid(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "1MB", "-n", "1", "--out", filepath.Join(dir, "s.json"))
	want := "--mem 1MB is decimal: 1000000 bytes (976.56KiB); for 1048576 bytes write 1MiB or 1M"
	if r.code != 0 || strings.Count(r.stderr, want) != 1 {
		t.Errorf("exit %d; stderr does not say once %q:\n%s", r.code, want, r.stderr)
	}
	r = runCLI(t, "run", "faultme", "--threads", "1", "--mem", "1M", "-n", "1", "--out", filepath.Join(dir, "t.json"))
	if strings.Contains(r.stderr, "decimal") {
		t.Errorf("1M is binary, nothing to say: %s", r.stderr)
	}
}

func TestCompareWithItselfWarns(t *testing.T) {
	w := seeds + "rostedt-without.json"
	r := runCLI(t, "compare", w, w)
	if r.code != 0 || !strings.Contains(r.stderr, "compares a file with itself") {
		t.Errorf("compare a a: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, "compare", "--a", w, "--b", "./"+w)
	if !strings.Contains(r.stderr, "itself") {
		t.Errorf("the same file by another path: stderr %q", r.stderr)
	}
	r = runCLI(t, "compare", seeds+"mitake-ab.json:a", seeds+"mitake-ab.json:b")
	if strings.Contains(r.stderr, "itself") {
		t.Errorf("two configurations of one file are not the same runs: %q", r.stderr)
	}
}

func TestVerifyMarksIntervalsThatAreNotRatios(t *testing.T) {
	f := &results.File{Workload: "faultme", Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns"}, {Name: "sys", Unit: "ns"}},
		Configs: []results.Config{{Name: "contend"}, {Name: "original"}}}
	sys := [][]float64{{0, 1e6, 2e6, 0, 3e6, 1e6, 0, 2e6}, {2e6, 0, 1e6, 3e6, 2e6, 0, 4e6, 1e6}}
	for i := 0; i < 16; i++ {
		c := i % 2
		f.Reps = append(f.Reps, results.Rep{Index: i, Config: c, Status: results.StatusOK,
			Metrics: results.ValuesOf(map[string]float64{"time": 1e9 + float64(i)*1e6, "sys": sys[c][i/2]})})
	}
	var b strings.Builder
	summary.WriteVerify(&b, f, 0.05)
	out := b.String()
	// Values of 0: the interval is of the difference, in the row's unit
	// (ms here), marked and explained; it was the shift over the
	// original's median printed as a ratio, below 0: [-0.333, 1.667]*.
	if !strings.Contains(out, "[-2.000, +1.000]†") || !strings.Contains(out, "†: sys had values of 0") {
		t.Errorf("the interval of sys (values of 0) is not marked:\n%s", out)
	}
	if strings.Contains(out, "time had values") {
		t.Errorf("time (all positive) is marked:\n%s", out)
	}
}

func TestInterruptedIsNotAFailure(t *testing.T) {
	f := &results.File{Workload: "faultme", Primary: "time", Metrics: []results.Metric{{Name: "time", Unit: "ns"}},
		Configs: []results.Config{{}}}
	for i := 0; i < 6; i++ {
		f.Reps = append(f.Reps, results.Rep{Index: i, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": 1e6 + float64(i)})})
	}
	f.Reps = append(f.Reps, results.Rep{Index: 6, Status: results.StatusInterrupted, Error: "interrupted by signal"})
	var b strings.Builder
	summary.Summary(&b, f, 0)
	if !strings.Contains(b.String(), "1 interrupted") || strings.Contains(b.String(), "failed (") {
		t.Errorf("the interrupted repetition is listed as failed:\n%s", b.String())
	}
}
