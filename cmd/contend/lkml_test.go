package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"contend/internal/lkml"
	"contend/internal/lkmlblock"
)

// TestCompareLKMLGolden checks compare --format lkml on the seed files:
// the robot's block (changed rows and the headline; --all every row) and
// contend's footer.
func TestCompareLKMLGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"compare-lkml-rostedt", []string{seeds + "rostedt-without.json", seeds + "rostedt-with.json"}},
		{"compare-lkml-mitake-all", []string{"--all", seeds + "mitake-ab.json:a", seeds + "mitake-ab.json:b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := golden(t, c.name, 0, append([]string{"compare", "--format", "lkml"}, c.args...)...)
			lines := strings.Split(r.stdout, "\n")
			if len(lines) < 12 || lines[0] != lkml.Rule || lines[10] != "         %stddev     %change         %stddev" {
				t.Errorf("not the robot's block:\n%s", r.stdout)
			}
		})
	}
}

// TestCompareLKMLThreeSides checks that lkml refuses more than two sides.
func TestCompareLKMLThreeSides(t *testing.T) {
	r := runCLI(t, "compare", "--format", "lkml", seeds+"rostedt-without.json", seeds+"rostedt-with.json", seeds+"rostedt-without.json")
	if r.code != 2 || !strings.Contains(r.stderr, "--format lkml: compares two sides") {
		t.Errorf("three sides: exit %d, %q", r.code, r.stderr)
	}
}

// TestWisLKMLAxes runs will-it-scale's futex4 twice and checks the axes the
// block names it by: mode, nr_task as a share of the CPUs, test, testcase;
// and the robot's stat names.
func TestWisLKMLAxes(t *testing.T) {
	test := "../../../shared/will-it-scale/tests/futex4.c"
	if _, err := os.Stat(test); err != nil {
		t.Skip("no will-it-scale snapshot")
	}
	// Beside the long parallel tests: its runs are processes of their
	// own (a run in this process would sweep, as leftovers of its
	// repetitions, the processes other tests start meanwhile).
	t.Parallel()
	dir := t.TempDir()
	for _, side := range []string{"a", "b"} {
		run := contendCmd(t, "run", "wis", "--test", test, "--tasks", "1", "--mode", "process", "--duration", "100ms",
			"--warmup-time", "10ms", "-n", "3", "-q", "--out", filepath.Join(dir, side+".json"))
		if out, err := run.CombinedOutput(); err != nil {
			t.Fatalf("run wis: %v: %s", err, out)
		}
	}
	r := runCLI(t, "compare", "--format", "lkml", "--all", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"))
	if r.code != 0 {
		t.Fatalf("compare: exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	keys, vals := strings.Split(strings.TrimSuffix(lines[1], ":"), "/"), strings.Split(strings.TrimSpace(lines[2]), "/")
	got := map[string]string{}
	for i, k := range keys {
		if i < len(vals) {
			got[k] = vals[i]
		}
	}
	if got["mode"] != "process" || got["test"] != "futex4" || got["testcase"] != "will-it-scale" || got["nr_task"] != lkmlblock.NrTask("1", strconv.Itoa(onlineCPUsForTest())) {
		t.Errorf("axes %v from %q / %q", got, lines[1], lines[2])
	}
	for _, stat := range []string{"will-it-scale.per_process_ops", "will-it-scale.workload", "time.elapsed_time"} {
		if !strings.Contains(r.stdout, "  "+stat+"\n") {
			t.Errorf("no row %s:\n%s", stat, r.stdout)
		}
	}
	if lines[4] != "commit: " || !strings.HasPrefix(lines[5], "  a.json") {
		t.Errorf("commit lines %q %q", lines[4], lines[5])
	}
}

func onlineCPUsForTest() int {
	b, _ := os.ReadFile("/sys/devices/system/cpu/online")
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, ok := strings.Cut(part, "-")
		a, _ := strconv.Atoi(lo)
		z := a
		if ok {
			z, _ = strconv.Atoi(hi)
		}
		n += z - a + 1
	}
	return n
}
