package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/fleet"
	"contend/internal/results"
)

// writeHostFile writes results/HOST/NAME: an ab file (two configurations)
// or, with one factor, a run file; side b (or the run) is factor times the
// base times. The host's marker names it.
func writeHostFile(t *testing.T, dir, host, name, release string, factors ...float64) string {
	t.Helper()
	d := filepath.Join(dir, host)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d, fleet.HostMarker), []byte(host+"\n"), 0o644)
	f := &results.File{Format: results.FormatName, Version: results.FormatVersion, Kind: "ab", Workload: "faultme", Complete: true,
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Primary: "time",
		Env: map[string]string{"hostname": "same-vm", "kernel.release": release}}
	base := []float64{100e6, 101e6, 99e6, 100.5e6, 99.5e6, 100.2e6}
	for c, fac := range factors {
		f.Configs = append(f.Configs, results.Config{Name: string(rune('a' + c)), Params: []results.Param{{Name: "threads", Value: "2"}}})
		for i, x := range base {
			f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Config: c, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": x * fac})})
			_ = i
		}
	}
	if len(factors) == 1 {
		f.Kind = "run"
		f.Configs[0].Name = ""
	}
	b, err := results.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareByHost(t *testing.T) {
	dir := t.TempDir()
	writeHostFile(t, dir, "h1", "ab.json", "6.1.0", 1, 0.8)
	writeHostFile(t, dir, "h2", "ab.json", "6.1.0", 1, 0.85)
	writeHostFile(t, dir, "h3", "ab.json", "6.9.0-rt", 1, 1.1)
	os.WriteFile(filepath.Join(dir, "h1", "env.txt"), []byte("not a result file\n"), 0o644)
	os.WriteFile(filepath.Join(dir, fleet.StatusFile), []byte("h1 ok\nh2 ok\nh3 ok\nh4 unreachable no facts\n"), 0o644)

	r := runCLI(t, "compare", "--by", "host", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{"Fleet: time, B against A on 3 groups (--by host)", "Direction: DISAGREES: slower on 1 and faster on 2 of 3 tested hosts",
		"Across hosts: ", "Between hosts: the change DIFFERS",
		"Missing: h4", "h3 goes the other way (slower); its environment against h1:", "kernel.release: 6.9.0-rt | 6.1.0", "h4: unreachable no facts"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("report lacks %q:\n%s", w, r.stdout)
		}
	}

	// The plot: one colour per host, drawn by the helper.
	usePlotHelper(t)
	svg := filepath.Join(t.TempDir(), "fleet.svg")
	r = runCLI(t, "compare", "--by", "host", "--plot", svg, dir)
	b, err := os.ReadFile(svg)
	if r.code != 0 || err != nil || !strings.Contains(string(b), "h3") || !strings.Contains(string(b), "stroke:#D62728;") {
		t.Errorf("--plot: exit %d, %v: %s", r.code, err, r.stderr)
	}

	// JSON, grouped by an environment key: two groups by kernel release.
	r = runCLI(t, "compare", "--by", "env.kernel.release", "--format", "json", dir)
	var j fleet.JSON
	if err := json.Unmarshal([]byte(r.stdout), &j); r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(j.Groups) != 2 || j.Groups[0].Key != "6.1.0" || j.Groups[0].NA != 12 || j.Agree {
		t.Errorf("by kernel release: %+v", j)
	}

	// Sides given with --a and --b: run files before.json and after.json per host.
	d2 := t.TempDir()
	var as, bs []string
	for _, h := range []string{"x1", "x2"} {
		as = append(as, writeHostFile(t, d2, h, "before.json", "6.1.0", 1))
		bs = append(bs, writeHostFile(t, d2, h, "after.json", "6.1.0", 0.9))
	}
	args := append([]string{"compare", "--by", "host", "--a"}, as...)
	args = append(append(args, "--b"), bs...)
	r = runCLI(t, args...)
	if r.code != 0 || !strings.Contains(r.stdout, "Direction: faster on 2 of 2 tested hosts, none significant the other way") || strings.Contains(r.stdout, "Missing") {
		t.Errorf("--a/--b fleet: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestCompareByUsageErrors(t *testing.T) {
	dir := t.TempDir()
	ab := writeHostFile(t, dir, "h1", "ab.json", "6.1.0", 1, 0.8)
	run1 := writeHostFile(t, dir, "h2", "one.json", "6.1.0", 1)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--by", "hostname", ab}, `--by: "hostname" is not accepted; accepted: host, env.KEY`},
		{[]string{"--by", "host", "--format", "csv", ab}, `--format: "csv" is not accepted with --by; accepted: text, json`},
		{[]string{"--by", "host"}, "which result files?"},
		{[]string{"--by", "host", "--plot", "x.pdf", ab}, `--plot: "x.pdf" has an unknown image format`},
		{[]string{"--by", "host", run1}, "h2 has 1 file ("},
		{[]string{"--by", "env.nosuch", ab}, `records no environment key "nosuch"`},
		{[]string{"--by", "host", "--hosts", filepath.Join(dir, "nosuch.txt"), ab}, "--hosts:"},
		{[]string{"--by", "host", t.TempDir()}, "holds no result file"},
		{[]string{"--by", "host", "--all", ab}, "--all: a fleet's report (--by) has one form"},
		{[]string{"--by", "host", "--full", ab}, "--full: a fleet's report (--by) has one form"},
		{[]string{"--plot", "x.svg", ab + ":a", ab + ":b"}, "--plot and --hosts go with --by"},
		{[]string{"--hosts", filepath.Join(dir, "nosuch.txt"), ab + ":a", ab + ":b"}, "--plot and --hosts go with --by"},
	} {
		r := runCLI(t, append([]string{"compare"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("compare %v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestCompareByHostGroupWithoutSides: a host whose files do not make two
// sides (one run file: a sweep or a run on that host) is listed as not
// compared, with the reason, and the other hosts are compared; the whole
// report failed on it before.
func TestCompareByHostGroupWithoutSides(t *testing.T) {
	dir := t.TempDir()
	writeHostFile(t, dir, "h1", "ab.json", "6.1.0", 1, 0.8)
	writeHostFile(t, dir, "h2", "ab.json", "6.1.0", 1, 0.85)
	writeHostFile(t, dir, "lone", "run.json", "6.1.0", 1)
	r := runCLI(t, "compare", "--by", "host", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{"Fleet: time, B against A on 2 groups", "Missing: lone", "lone: not-compared host lone has 1 file"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("report lacks %q:\n%s", w, r.stdout)
		}
	}
}
