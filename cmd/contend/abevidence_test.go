package main

import (
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/evidence"
	"contend/internal/results"
)

// TestABSideEvidenceUsageErrors: --a-evidence and --b-evidence are
// validated like --evidence, name themselves, and leave nothing behind;
// --evidence inside --a says where it goes.
func TestABSideEvidenceUsageErrors(t *testing.T) {
	fakeTrace(t)
	cases := map[string]struct {
		args []string
		want string
	}{
		"unknown":          {[]string{"ab", "faultme", "--mem", "1MiB", "--a-evidence", "bogus"}, "--a-evidence: unknown collector"},
		"empty":            {[]string{"ab", "faultme", "--mem", "1MiB", "--b-evidence", " "}, "--b-evidence: the list is empty"},
		"none and more":    {[]string{"ab", "faultme", "--mem", "1MiB", "--b-evidence", "none,sched"}, "--b-evidence: none cannot be combined"},
		"aa with b":        {[]string{"ab", "faultme", "--mem", "1MiB", "--aa", "--b-evidence", "none"}, "--b-evidence"},
		"inside --a":       {[]string{"ab", "faultme", "--mem", "1MiB", "--a", "--evidence none"}, "--a-evidence"},
		"same as shared":   {[]string{"ab", "faultme", "--mem", "1MiB", "--evidence", "none", "--a-evidence", "none"}, "--a-evidence/--b-evidence"},
		"lock and trace":   {[]string{"ab", "faultme", "--mem", "1MiB", "--trace-events", "lock", "--b-evidence", "lock"}, "--trace-events and --evidence lock"},
		"exec unknown":     {[]string{"ab", "exec", "--b-evidence", "x", "--a", "/bin/true", "--b", "/bin/false"}, "--b-evidence: unknown collector"},
		"exec same config": {[]string{"ab", "exec", "--a-evidence", "default", "--", "/bin/true"}, "--a-evidence/--b-evidence"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := chdirTemp(t)
			before := listFiles(t, dir)
			assertUsageError(t, runCLI(t, c.args...), c.want, dir, before)
		})
	}
}

// TestABSideEvidence: side A without collectors, side B with the
// defaults, one configuration otherwise: the file records each side's
// set, only side B's repetitions carry evidence, and the comparison is
// made on what both have and names what only B has.
func TestABSideEvidence(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "ab.json")
	r := runCLI(t, "ab", "faultme", "--full", "--mem", "1MiB", "--threads", "1", "--a-evidence", "none", "-n", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := f.Configs[0].Env["evidence"], f.Configs[1].Env["evidence"]; a != "none" || b != strings.Join(evidence.Default, ",") {
		t.Errorf("sides' evidence %q and %q, want none and %s", a, b, strings.Join(evidence.Default, ","))
	}
	if !strings.HasPrefix(f.Evidence["system"], "available") {
		t.Skipf("system collector %s", f.Evidence["system"])
	}
	for _, rep := range f.Reps {
		n := 0
		for k := range rep.Metrics.All() {
			if evidence.IsEvidence(k) {
				n++
			}
		}
		if rep.Config == 0 && n != 0 || rep.Config == 1 && n == 0 {
			t.Errorf("repetition %d of side %s has %d evidence metrics", rep.Index, f.ConfigName(rep.Config), n)
		}
	}
	text := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{"side A: threads=1", "evidence none", "evidence " + strings.Join(evidence.Default, ","), "side A has no evidence values", "evidence metrics of side B are not compared"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	// compare reads the file the same way.
	// Without --full, ab's report is the brief one.
	brief := runCLI(t, "ab", "faultme", "--mem", "1MiB", "--threads", "1", "--aa", "-n", "2", "--out", filepath.Join(t.TempDir(), "brief.json"))
	if one := strings.Join(strings.Fields(brief.stdout), " "); brief.code != 0 || !strings.Contains(one, "--full gives the full report") || strings.Contains(one, "Environment") {
		t.Errorf("ab without --full: exit %d, not the brief report:\n%s%s", brief.code, brief.stdout, brief.stderr)
	}
	c := runCLI(t, "compare", "--full", out+":a", out+":b")
	if c.code != 0 || !strings.Contains(strings.Join(strings.Fields(c.stdout), " "), "evidence metrics of side B are not compared") {
		t.Errorf("compare: exit %d\n%s\n%s", c.code, c.stdout, c.stderr)
	}

	// An opt-in collector on one side adds it to that side's defaults;
	// --aa with --a-evidence runs both sides with it.
	out2 := filepath.Join(dir, "aa.json")
	r = runCLI(t, "ab", "faultme", "--mem", "1MiB", "--threads", "1", "--aa", "--a-evidence", "perf", "-n", "1", "--out", out2)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, _ = results.Read(out2)
	want := evidence.Describe(evidence.Union([]string{"perf"}, evidence.Default))
	if a, b := f.Configs[0].Env["evidence"], f.Configs[1].Env["evidence"]; a != want || b != want {
		t.Errorf("--aa sides' evidence %q and %q, want %s on both", a, b, want)
	}
}
