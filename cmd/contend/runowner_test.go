package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestABUntilRefusedBeforeTheFile: an adaptive A/B run whose --min-runs
// can never decide is refused (exit 2) before anything is made or said:
// the result file was created, and the environment warnings printed,
// before the refusal.
func TestABUntilRefusedBeforeTheFile(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "a.json")
	r := runCLI(t, "ab", "faultme", "--threads", "2", "--mem", "1MiB", "--aa", "--evidence", "none",
		"--until", "20%", "--min-runs", "2", "--max-runs", "3", "--out", out)
	if r.code != 2 || !strings.Contains(r.stderr, "can never decide a difference") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "warning:") {
		t.Errorf("warnings before the refusal:\n%s", r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the result file was made: %v", err)
	}
}

// TestVerboseEverywhere: -V, accepted by every repetition command, prints
// one line per repetition in exec too (it was accepted and ignored).
func TestVerboseEverywhere(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "exec", "-n", "2", "-V", "--evidence", "none", "--out", filepath.Join(dir, "e.json"), "--", "/bin/true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"repetition 1: real ", "repetition 2: real "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestVerifyWarmupKeepsTheMeasuredPairsBalanced: verify's plan is
// ab.Schedule's AB/BA: the measured pairs start the pattern afresh after
// the warm-ups (contend first), as ab's do; verify's own plan counted the
// warm-ups in, so that one warm-up made the measured pairs start with the
// original.
func TestVerifyWarmupKeepsTheMeasuredPairsBalanced(t *testing.T) {
	dir := chdirTemp(t)
	bin := buildC(t, fakeFaultme)
	out := filepath.Join(dir, "v.json")
	r := runCLI(t, "verify", "faultme", "--threads", "2", "--mem", "1MiB", "-n", "3", "--warmup", "1", "--evidence", "none", "--out", out, "--", bin, "900")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var warm, measured []int
	for _, rep := range f.Reps {
		if rep.Warmup {
			warm = append(warm, rep.Config)
		} else {
			measured = append(measured, rep.Config)
		}
	}
	if got := fmtInts(warm) + " | " + fmtInts(measured); got != "0 1 | 0 1 1 0 0 1" {
		t.Errorf("order %s, want 0 1 | 0 1 1 0 0 1", got)
	}
}
