package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/summary"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

const seeds = "testdata/seeds/"

// golden runs contend with args, checks the exit code, and compares
// stdout and stderr with testdata/NAME.stdout and NAME.stderr (a missing
// file means empty). With -update it rewrites them; on a mismatch it
// writes NAME.got-stdout / NAME.got-stderr and shows a diff.
func golden(t *testing.T, name string, code int, args ...string) result {
	t.Helper()
	r := runCLI(t, args...)
	if r.code != code {
		t.Errorf("%s: exit %d, want %d\nstderr:\n%s", name, r.code, code, r.stderr)
	}
	for _, s := range []struct{ ext, got string }{{"stdout", r.stdout}, {"stderr", r.stderr}} {
		path := filepath.Join("testdata", name+"."+s.ext)
		if *update {
			if s.got == "" {
				os.Remove(path)
				continue
			}
			if err := os.WriteFile(path, []byte(s.got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if string(want) == s.got {
			continue
		}
		gotPath := filepath.Join("testdata", name+".got-"+s.ext)
		os.WriteFile(gotPath, []byte(s.got), 0o644)
		diff, _ := exec.Command("diff", "-u", path, gotPath).CombinedOutput()
		t.Errorf("%s: %s differs from %s (got in %s; go test -run %s -update rewrites):\n%s",
			name, s.ext, path, gotPath, t.Name(), diff)
	}
	return r
}

// checkWidth asserts that every line of text fits 80 columns.
func checkWidth(t *testing.T, name, text string) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%s line %d has %d runes:\n%s", name, i+1, n, l)
		}
	}
}

func TestCompareGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"compare-rostedt", []string{seeds + "rostedt-without.json", seeds + "rostedt-with.json"}},
		{"compare-galbraith-osim", []string{seeds + "galbraith-osim-rt.json", seeds + "galbraith-osim-rtm.json"}},
		{"compare-galbraith-semop", []string{seeds + "galbraith-semop-rt.json", seeds + "galbraith-semop-rtm.json"}},
		{"compare-galbraith-semop-welch", []string{"--test", "welch", seeds + "galbraith-semop-rt.json", seeds + "galbraith-semop-rtm.json"}},
		{"compare-mitake", []string{seeds + "mitake-ab.json:a", seeds + "mitake-ab.json:b"}},
		{"compare-xiao", []string{seeds + "xiao-ab.json:0", seeds + "xiao-ab.json:1", "--threshold", "2%"}},
		{"compare-pooled", []string{"--a", seeds + "mitake-ab.json:a", seeds + "xiao-ab.json:a", "--b", seeds + "mitake-ab.json:b", seeds + "xiao-ab.json:b"}},
		{"compare-three", []string{seeds + "rostedt-without.json", seeds + "rostedt-with.json", seeds + "rostedt-without.json"}},
		{"compare-metric", []string{"--metric", "sys,contended", "--one-family", seeds + "mitake-ab.json:a", seeds + "mitake-ab.json:b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The full report (--full), as compare printed by default
			// before the brief one.
			r := golden(t, c.name, 0, append([]string{"compare", "--full"}, c.args...)...)
			checkWidth(t, c.name, r.stdout)
		})
	}
}

// TestCompareBriefGolden: by default compare answers in a few lines: the
// sides, the headline, the table of the metrics that changed and one line
// counting the others (it printed about 100 lines, every metric with its
// notes); --all puts every metric in the table.
func TestCompareBriefGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"compare-brief-rostedt", []string{seeds + "rostedt-without.json", seeds + "rostedt-with.json"}},
		{"compare-brief-mitake", []string{seeds + "mitake-ab.json:a", seeds + "mitake-ab.json:b"}},
		{"compare-brief-all-osim", []string{"--all", seeds + "galbraith-osim-rt.json", seeds + "galbraith-osim-rtm.json"}},
		{"compare-brief-three", []string{seeds + "rostedt-without.json", seeds + "rostedt-with.json", seeds + "rostedt-without.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := golden(t, c.name, 0, append([]string{"compare"}, c.args...)...)
			checkWidth(t, c.name, r.stdout)
			full := runCLI(t, append([]string{"compare", "--full"}, c.args...)...)
			if n, nf := strings.Count(r.stdout, "\n"), strings.Count(full.stdout, "\n"); n >= nf || n > 20 {
				t.Errorf("brief report has %d lines, the full one %d", n, nf)
			}
			if !strings.Contains(r.stdout, "--full gives the full report") {
				t.Errorf("the brief report does not say how to get the full one:\n%s", r.stdout)
			}
		})
	}
	// The other formats hold every metric: --all and --full go with text.
	for _, f := range []string{"--all", "--full"} {
		r := runCLI(t, "compare", f, "--format", "json", seeds+"rostedt-without.json", seeds+"rostedt-with.json")
		if r.code != 2 || !strings.Contains(r.stderr, f+": goes with --format text") {
			t.Errorf("%s --format json: exit %d: %s", f, r.code, r.stderr)
		}
	}
}

func TestCompareFormatsGolden(t *testing.T) {
	for _, f := range []string{"markdown", "csv", "json", "bench"} {
		t.Run(f, func(t *testing.T) {
			r := golden(t, "compare-rostedt-"+f, 0, "compare", "--format", f, seeds+"rostedt-without.json", seeds+"rostedt-with.json")
			if f == "json" {
				var v map[string]any
				if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
					t.Fatalf("json output does not parse: %v", err)
				}
			}
		})
	}
}

// TestCompareBenchLines checks the Go benchmark format line by line as
// benchfmt reads it: configuration lines "key: value" with a lower-case
// key, Unit lines, and benchmark lines "BenchmarkName N (value unit)...".
func TestCompareBenchLines(t *testing.T) {
	r := runCLI(t, "compare", "--format", "bench", seeds+"mitake-ab.json:a", seeds+"mitake-ab.json:b")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sides, benches := 0, 0
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "Benchmark"):
			benches++
			if len(f)%2 != 0 || f[1] != "1" {
				t.Errorf("benchmark line %q: want name, 1, then value-unit pairs", l)
			}
			if f[3] != "ns/op" {
				t.Errorf("primary metric real should be ns/op first: %q", l)
			}
		case strings.HasPrefix(l, "Unit "):
			if !strings.Contains(l, "better=") {
				t.Errorf("unit line without direction: %q", l)
			}
		default:
			k, _, ok := strings.Cut(l, ": ")
			if !ok || k == "" || strings.ToLower(k) != k || strings.ContainsAny(k, " \t") {
				t.Errorf("not a configuration line: %q", l)
			}
			if k == "side" {
				sides++
			}
		}
	}
	if sides != 2 || benches != 6 {
		t.Errorf("%d side lines and %d benchmark lines, want 2 and 6:\n%s", sides, benches, r.stdout)
	}
}

// seedReport compares two seed fixtures as the command does.
func seedReport(t *testing.T, opt comparison.Options, a, b string) *comparison.Comparison {
	t.Helper()
	var sides []comparison.Side
	for _, spec := range []string{a, b} {
		p, _, err := comparison.OpenPart(seeds + spec)
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, comparison.Side{Name: spec, Parts: []comparison.Part{p}})
	}
	r, err := comparison.Build(sides, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func row(t *testing.T, r *comparison.Comparison, metric string) comparison.MetricRow {
	t.Helper()
	for _, x := range r.Pairs[0].Rows {
		if x.Metric.Name == metric {
			return x
		}
	}
	t.Fatalf("no row %s", metric)
	return comparison.MetricRow{}
}

// TestCompareSeedVerdicts asserts what a statistician would conclude from
// the published numbers.
func TestCompareSeedVerdicts(t *testing.T) {
	// Rostedt: 5 runs without, 4 with the patch, every run with it
	// faster: U = 0, exact two-sided p = 2/C(9,4) = 2/126 = 0.0159.
	r := seedReport(t, comparison.Options{}, "rostedt-without.json", "rostedt-with.json")
	x := row(t, r, "time")
	if x.Cmp.Method != "exact" || x.Cmp.MannWhitney.U != 0 || !near(x.Cmp.P, 2.0/126) || !near(x.Cmp.AdjustedP, 2.0/126) {
		t.Errorf("Rostedt time: %s U=%v p=%v adjusted %v, want exact U=0 p=0.0159", x.Cmp.Method, x.Cmp.MannWhitney.U, x.Cmp.P, x.Cmp.AdjustedP)
	}
	if report.VerdictWord(x) != "faster" {
		t.Errorf("Rostedt time: %q, want faster", report.VerdictWord(x))
	}
	// Median 11.299 s -> 6.610 s: -41.5%.
	if !near(x.Cmp.Change, 6609991.0/11299086-1) || !(x.Cmp.ChangeHi < 0) {
		t.Errorf("Rostedt change %v [%v, %v]", x.Cmp.Change, x.Cmp.ChangeLo, x.Cmp.ChangeHi)
	}
	if p := row(t, r, "pages"); !p.Identical || report.VerdictWord(p) != "identical" {
		t.Errorf("pages should be identical, not tested: %+v", p)
	}
	if len(r.Outliers) != 1 || r.Outliers[0].Value != 3978194000 || r.Outliers[0].Side != 1 {
		t.Errorf("outliers %+v, want the 3.98 s run of the patched side", r.Outliers)
	}
	h := report.HeadlineFor(r, r.Pairs[0])
	if want := "faultme time: 11.30 s -> 6.610 s, HL -41.5% [-64.8%, -39.5%], p=0.016 (U test, n=5+4): faster, unstable: CV 23% on B; check with an A/A, ab --aa"; h != want {
		t.Errorf("headline\n%s\nwant\n%s", h, want)
	}

	// 3 against 3 can never reach 0.05 with a rank test (smallest p =
	// 2/C(6,3) = 0.1), even when the samples do not overlap: Galbraith's
	// semop-multi and Mitake's runs.
	for _, c := range []struct{ a, b, metric string }{
		{"galbraith-semop-rt.json", "galbraith-semop-rtm.json", "ops_per_sec"},
		{"galbraith-osim-rt.json", "galbraith-osim-rtm.json", "time"},
		{"mitake-ab.json:a", "mitake-ab.json:b", "real"},
		{"mitake-ab.json:a", "mitake-ab.json:b", "contended"},
	} {
		r := seedReport(t, comparison.Options{}, c.a, c.b)
		x := row(t, r, c.metric)
		if x.Cmp.Verdict != analysis.VerdictTooFewRuns {
			t.Errorf("%s vs %s %s: %q, want too few runs", c.a, c.b, c.metric, x.Cmp.Verdict)
		}
	}
	// semop-multi's values do not overlap: U = 0 and p = 0.1 exactly.
	r = seedReport(t, comparison.Options{}, "galbraith-semop-rt.json", "galbraith-semop-rtm.json")
	if x := row(t, r, "ops_per_sec"); x.Cmp.MannWhitney.U != 0 || !near(x.Cmp.P, 0.1) {
		t.Errorf("semop-multi U=%v p=%v, want 0 and 0.1", x.Cmp.MannWhitney.U, x.Cmp.P)
	}
	// osim overlaps (12.68 s on -rt is below 13.76 s on -rtm): p = 0.2.
	r = seedReport(t, comparison.Options{}, "galbraith-osim-rt.json", "galbraith-osim-rtm.json")
	if x := row(t, r, "time"); x.Cmp.MannWhitney.U != 1 || !near(x.Cmp.P, 0.2) {
		t.Errorf("osim U=%v p=%v, want 1 and 0.2", x.Cmp.MannWhitney.U, x.Cmp.P)
	}
	// Assuming normal noise (Welch), the tight semop-multi runs do show
	// the -rtm kernel slower: worse (higher ops/s is better).
	r = seedReport(t, comparison.Options{Test: analysis.TestWelch}, "galbraith-semop-rt.json", "galbraith-semop-rtm.json")
	if x := row(t, r, "ops_per_sec"); x.Cmp.Verdict != analysis.VerdictWorse || !(x.Cmp.P < 0.001) {
		t.Errorf("semop-multi Welch: %q p=%v, want worse, p < 0.001", x.Cmp.Verdict, x.Cmp.P)
	}
	// Xiao's 10 against 10: no overlap, exact p = 2/C(20,10) = 1.08e-5.
	r = seedReport(t, comparison.Options{}, "xiao-ab.json:a", "xiao-ab.json:b")
	if x := row(t, r, "real"); report.VerdictWord(x) != "faster" || !near(x.Cmp.P, 2/184756.0) {
		t.Errorf("Xiao: %q p=%v, want faster, p=1.08e-5", report.VerdictWord(x), x.Cmp.P)
	}
}

func near(a, b float64) bool { return a == b || (a-b)/b < 1e-9 && (b-a)/b < 1e-9 }

func TestComparePooledWarnsBetweenFiles(t *testing.T) {
	r := runCLI(t, "compare", "--full", "--a", seeds+"mitake-ab.json:a", seeds+"xiao-ab.json:a", "--b", seeds+"mitake-ab.json:b", seeds+"xiao-ab.json:b")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"warning: side A: real differs between its files", "warning: side B: real differs", "warning: the parameters differ", "variant"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lacks %q:\n%s", want, r.stdout)
		}
	}
	// The same file twice on one side: no warning.
	r = runCLI(t, "compare", "--a", seeds+"xiao-ab.json:a", seeds+"xiao-ab.json:a", "--b", seeds+"xiao-ab.json:b")
	if strings.Contains(r.stdout, "differs between its files") {
		t.Errorf("identical files flagged:\n%s", r.stdout)
	}
}

// writeFile writes content to a file in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareErrors(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(seeds + "rostedt-with.json")
	if err != nil {
		t.Fatal(err)
	}
	newer := strings.Replace(string(good), `"version": 1`, `"version": 7`, 1)
	var sweep map[string]any
	json.Unmarshal(good, &sweep)
	sweep["kind"] = "sweep"
	cfgs := sweep["configs"].([]any)
	sweep["configs"] = append(cfgs, cfgs[0])
	sb, _ := json.Marshal(sweep)
	files := map[string]string{
		"empty":     writeFile(t, dir, "empty.json", ""),
		"truncated": writeFile(t, dir, "truncated.json", string(good[:len(good)/2])),
		"corrupt":   writeFile(t, dir, "corrupt.json", `{"format": "contend-result", "version": 1, "workload": 3}`),
		"newer":     writeFile(t, dir, "newer.json", newer),
		"notresult": writeFile(t, dir, "other.json", `{"hello": "world"}`),
		"sweep":     writeFile(t, dir, "sweep.json", string(sb)),
		"missing":   filepath.Join(dir, "missing.json"),
	}
	w, b := seeds+"rostedt-without.json", seeds+"rostedt-with.json"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"one file", []string{w}, "needs a baseline and at least one other"},
		{"missing", []string{w, files["missing"]}, "missing.json: no such result file"},
		{"empty", []string{files["empty"], w}, "empty.json: empty file"},
		{"truncated", []string{w, files["truncated"]}, "truncated.json: truncated or corrupt JSON"},
		{"corrupt", []string{w, files["corrupt"]}, "corrupt.json: corrupt result file"},
		{"newer", []string{w, files["newer"]}, "newer.json: result format version 7 is newer"},
		{"not a result", []string{w, files["notresult"]}, "other.json: not a contend result file"},
		{"directory", []string{w, dir}, "is a directory"},
		{"workloads", []string{w, seeds + "galbraith-osim-rt.json"}, "different workloads: " + w + " is faultme, " + seeds + "galbraith-osim-rt.json is osim"},
		{"ab no selector", []string{seeds + "mitake-ab.json", b}, "mitake-ab.json has 2 configurations (a, b): select one as " + seeds + "mitake-ab.json:a"},
		{"bad selector", []string{seeds + "mitake-ab.json:c", seeds + "mitake-ab.json:a"}, `no configuration "c"; it has a, b (or an index from 0 to 1)`},
		{"sweep", []string{files["sweep"], b}, b + " is not a sweep (it is an import file)"},
		{"metric", []string{"--metric", "nosuch", w, b}, `no metric "nosuch" in faultme; its metrics: time, pages`},
		{"metric no data", []string{"--metric", "faults", w, b}, "metric faults has no successful repetition on side A"},
		{"a without b", []string{"--a", w}, "--a and --b go together"},
		{"both", []string{"--a", w, "--b", b, "--", w}, "either as arguments or with --a/--b"},
		{"alpha", []string{"--alpha", "5", w, b}, "--alpha: 5 is not accepted"},
		{"threshold", []string{"--threshold", "two", w, b}, `--threshold: "two" is not accepted`},
		{"threshold range", []string{"--threshold", "150%", w, b}, "below 100%"},
		{"test", []string{"--test", "ks", w, b}, `--test: "ks" is not accepted`},
		{"format", []string{"--format", "xml", w, b}, `--format: "xml" is not accepted`},
		{"flag", []string{"--nosuch", w, b}, "unknown flag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"compare"}, c.args...)...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", r.code, exitUsage, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout not empty:\n%s", r.stdout)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr %q, want one line containing %q", r.stderr, c.want)
			}
		})
	}
}

func TestCompareSweepWhole(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile(seeds + "rostedt-with.json")
	var f map[string]any
	json.Unmarshal(good, &f)
	f["kind"] = "sweep"
	cfgs := f["configs"].([]any)
	f["configs"] = append(cfgs, cfgs[0])
	sb, _ := json.Marshal(f)
	p := writeFile(t, dir, "sweep.json", string(sb))
	// A sweep given whole goes to the curve comparison, which refuses a
	// side that is not a sweep.
	r := runCLI(t, "compare", p, seeds+"rostedt-without.json")
	want := seeds + "rostedt-without.json is not a sweep (it is an import file) but " + p + " is"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d %q, want 2 and %q", r.code, r.stderr, want)
	}
}

func TestCompareArgs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"contend compare a.json b.json", "contend compare -- a.json b.json"},
		{"contend compare --a x y --b z w --alpha 0.01", "contend compare --a x --a y --b z --b w --alpha 0.01"},
		{"contend compare --format json --a=x y --b z", "contend compare --format json --a x --a y --b z"},
		{"contend compare a.json --metric time b.json", "contend compare --metric time -- a.json b.json"},
		{"contend compare --one-family a b", "contend compare --one-family -- a b"},
	} {
		got := strings.Join(reorderArgs(newApp(io.Discard, io.Discard), strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestShowOutliers(t *testing.T) {
	r := runCLI(t, "show", "--full", seeds+"rostedt-with.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "outliers (modified z-score above 3.5; kept, not dropped):\n  time 3.978 s: repetition 3, z = -11.7\n") {
		t.Errorf("show lacks the outlier report:\n%s", r.stdout)
	}
	r = runCLI(t, "show", "--full", seeds+"rostedt-without.json")
	if !strings.Contains(r.stdout, "outliers: none") {
		t.Errorf("show lacks 'outliers: none':\n%s", r.stdout)
	}
	checkWidth(t, "show", r.stdout)
}

// TestCompareReadsWhatRunWrites compares two real faultme runs: every
// process metric is compared, the text fits 80 columns.
func TestCompareReadsWhatRunWrites(t *testing.T) {
	dir := chdirTemp(t)
	var paths []string
	for _, n := range []string{"a.json", "b.json"} {
		p := filepath.Join(dir, n)
		r := runCLI(t, "run", "faultme", "--threads", "2", "--mem", "1MiB", "-n", "4", "--out", p)
		if r.code != 0 {
			t.Fatalf("run: exit %d: %s", r.code, r.stderr)
		}
		paths = append(paths, p)
	}
	r := runCLI(t, "compare", "--full", paths[0], paths[1])
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkWidth(t, "real runs", r.stdout)
	for _, want := range []string{"faultme time: ", "maxrss", "ivcsw", "Holm over"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lacks %q:\n%s", want, r.stdout)
		}
	}
	var buf bytes.Buffer
	f, _ := results.Read(paths[0])
	summary.WriteOutliers(&buf, f, 0)
	if buf.Len() == 0 {
		t.Errorf("no outlier line for 4 repetitions")
	}
}
