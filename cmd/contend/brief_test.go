package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestBriefSummaries: run, show and sweep answer first, as compare does
// (report.Detail): the primary metric with its interval in the first
// lines, the workload's own metrics, one line counting the rest with the
// flags that show them, in at most 24 lines besides the warnings of the machine (a run of faultme printed 63:
// every metric twice, 20 evidence rows); --all lists every metric and
// the evidence, --full every metric's spread too, as before.
func TestBriefSummaries(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "fm.jsonl")
	r := runCLI(t, "run", "faultme", "--threads", "2", "--mem", "4MiB", "-n", "6", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var process, evidence int
	for _, m := range f.Metrics {
		switch {
		case results.IsProcessMetric(m.Name):
			process++
		case strings.HasPrefix(m.Name, "k."):
			evidence++
		}
	}
	if process != len(results.ProcessMetrics) || evidence == 0 {
		t.Fatalf("the file has %d process and %d evidence metrics", process, evidence)
	}
	show := func(args ...string) []string {
		t.Helper()
		r := runCLI(t, append([]string{"show", out}, args...)...)
		if r.code != 0 {
			t.Fatalf("show %v: exit %d\n%s", args, r.code, r.stderr)
		}
		return strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	}
	// The run's summary and show's: the headline within the first 8
	// lines, the count line naming the flags.
	for name, lines := range map[string][]string{"run": strings.Split(strings.TrimRight(r.stdout, "\n"), "\n"), "show": show()} {
		head := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "faultme time: median ") && strings.Contains(l, "95% CI [") {
				head = i
				break
			}
		}
		text := strings.Join(lines, "\n")
		if n := len(withoutWarnings(lines)); head < 0 || head > 7 || n > 24 {
			t.Errorf("%s: headline at line %d of %d (without the machine's warnings):\n%s", name, head+1, n, text)
		}
		want := []string{"Not shown: 9 process metrics", "kernel evidence metrics", "every metric's spread", "--all lists the metrics; --full all of it."}
		for _, w := range want {
			if !strings.Contains(strings.Join(strings.Fields(text), " "), w) {
				t.Errorf("%s: no %q:\n%s", name, w, text)
			}
		}
		for _, hidden := range []string{"maxrss", "k.csw"} {
			if strings.Contains(text, hidden) || spreadTable.MatchString(text) {
				t.Errorf("%s: brief shows %s:\n%s", name, hidden, text)
			}
		}
	}
	// --all: every metric's row, no spread; --full: the spread too.
	all, full := strings.Join(show("--all"), "\n"), strings.Join(show("--full"), "\n")
	for _, m := range f.Metrics {
		if strings.HasPrefix(m.Name, "k.") {
			continue // evidence that is 0 in every repetition is counted, not listed
		}
		for name, text := range map[string]string{"--all": all, "--full": full} {
			if !strings.Contains(text, "\n"+m.Name+" ") {
				t.Errorf("show %s lacks %s:\n%s", name, m.Name, text)
			}
		}
	}
	for _, w := range []string{"k.csw", "outliers"} {
		if !strings.Contains(full, w) || !spreadTable.MatchString(full) {
			t.Errorf("show --full lacks %q or the spread:\n%s", w, full)
		}
	}
	if !strings.Contains(all, "k.csw") || spreadTable.MatchString(all) || !strings.Contains(all, "Not shown: every metric's spread") {
		t.Errorf("show --all:\n%s", all)
	}

	// A sweep: its primary metric and throughput per point first, the
	// fits in one line, the medians of the other metrics with --all,
	// the fits in full with --full.
	sw := filepath.Join(dir, "sw.jsonl")
	r = runCLI(t, "sweep", "faultme", "--mem", "1MiB", "--threads", "1,2,3", "-n", "2", "--out", sw)
	if r.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	text := strings.Join(strings.Fields(r.stdout), " ")
	if len(lines) > 30 || !strings.Contains(text, "USL fit: ") || !strings.Contains(text, "Not shown: the medians per point of") ||
		!strings.Contains(text, "--all lists them; --full adds them and the fits in full") || strings.Contains(text, "maxrss") {
		t.Errorf("sweep, %d lines:\n%s", len(lines), r.stdout)
	}
	r = runCLI(t, "show", "--full", sw)
	if r.code != 0 || !strings.Contains(r.stdout, "maxrss") || !strings.Contains(r.stdout, "USL fit, 6 repetitions") || !strings.Contains(r.stdout, "Amdahl fit, ") {
		t.Errorf("show --full of a sweep: exit %d\n%s", r.code, r.stdout)
	}
	r = runCLI(t, "show", "--all", sw)
	if r.code != 0 || !strings.Contains(r.stdout, "maxrss") || strings.Contains(r.stdout, "Amdahl fit, ") {
		t.Errorf("show --all of a sweep: exit %d\n%s", r.code, r.stdout)
	}
}

// spreadTable is the heading of a summary's table of spreads.
var spreadTable = regexp.MustCompile(`(?m)^metric\s+unit\s+mean\s+stddev\s+CV\s+Q1\s+Q3$`)

// withoutWarnings is lines without the warnings (and their continuation
// lines), which say what the machine was doing.
func withoutWarnings(lines []string) []string {
	var out []string
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "warning: "):
			in = true
		case in && strings.HasPrefix(l, "  "):
		default:
			in = false
			out = append(out, l)
		}
	}
	return out
}
