package main

import (
	"encoding/xml"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// usePlotHelper makes 'contend plot' run this test binary as contend-plot.
func usePlotHelper(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CONTEND_PLOT_HELPER", exe)
	t.Setenv("CONTEND_TEST_AS_PLOT", "1")
}

func TestPlotSweepAndRun(t *testing.T) {
	dir := chdirTemp(t)
	usePlotHelper(t)
	sw := filepath.Join(dir, "s.json")
	if r := runCLI(t, "sweep", "faultme", "--mem", "256KiB", "--threads", "1,2,3", "-n", "1", "-q", "--label", "tiny", "--out", sw); r.code != 0 {
		t.Fatalf("sweep: %d %s", r.code, r.stderr)
	}
	run := filepath.Join(dir, "r.json")
	if r := runCLI(t, "run", "faultme", "--mem", "256KiB", "--threads", "1", "-n", "2", "-q", "--out", run); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	// Flags may follow the files.
	svg := filepath.Join(dir, "s.svg")
	// It says what it wrote (it said nothing).
	if r := runCLI(t, "plot", sw, "--out", svg); r.code != 0 || r.stdout != "plot: "+svg+", from 1 result file\n" {
		t.Fatalf("plot svg: %d %q %s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("not an SVG document: %v %v", err, doc.XMLName)
	}
	if !strings.Contains(string(b), "tiny (") {
		t.Errorf("legend lacks the label")
	}
	pngPath := filepath.Join(dir, "r.png")
	if r := runCLI(t, "plot", "--metric", "cpu", "--out", pngPath, run, run); r.code != 0 {
		t.Fatalf("plot png: %d %s", r.code, r.stderr)
	}
	fh, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := png.Decode(fh); err != nil {
		t.Errorf("not a PNG: %v", err)
	}
}

func TestPlotBadUsage(t *testing.T) {
	dir := chdirTemp(t)
	usePlotHelper(t)
	sw := filepath.Join(dir, "s.json")
	if r := runCLI(t, "sweep", "faultme", "--mem", "256KiB", "--threads", "1,2", "-n", "1", "-q", "--out", sw); r.code != 0 {
		t.Fatalf("sweep: %d %s", r.code, r.stderr)
	}
	run := filepath.Join(dir, "r.json")
	if r := runCLI(t, "run", "faultme", "--mem", "256KiB", "--threads", "1", "-n", "1", "-q", "--out", run); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"plot", sw, "--out", "x.pdf"}, `unknown image format ".pdf"`},
		{[]string{"plot", sw, "--out", "x"}, "unknown image format"},
		{[]string{"plot", sw}, "--out is required"},
		{[]string{"plot", "--out", "x.svg"}, "which result files"},
		{[]string{"plot", sw, run, "--out", "x.svg"}, "cannot mix sweep files and plain result files"},
		{[]string{"plot", "nosuch.json", "--out", "x.svg"}, "no such result file"},
		{[]string{"plot", run, "--out", "x.svg", "--metric", "bogus"}, `no metric "bogus"`},
	}
	for _, c := range cases {
		r := runCLI(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d stderr %q, want 2 and one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
	for _, f := range []string{"x.pdf", "x", "x.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written", f)
		}
	}
	t.Setenv("CONTEND_PLOT_HELPER", filepath.Join(dir, "no-helper"))
	if r := runCLI(t, "plot", sw, "--out", "y.svg"); r.code != 1 || !strings.Contains(r.stderr, "no-helper") {
		t.Errorf("missing helper: exit %d %q", r.code, r.stderr)
	}
}

// TestMainBinaryHasNoPlot guards the repetition child's start-up: the
// contend binary must not link gonum/plot (its init parses fonts).
func TestMainBinaryHasNoPlot(t *testing.T) {
	t.Parallel() // go list only, beside the long parallel tests
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goBin, "list", "-deps", "contend/cmd/contend").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "gonum.org/v1/plot") || p == "contend/internal/plot" {
			t.Errorf("cmd/contend depends on %s; plotting belongs in cmd/contend-plot", p)
		}
	}
}

// TestPlotHelperLinksNoC guards the layers: contend-plot reads result
// files, so it must link neither cgo nor the C workloads, nor the packages
// that run repetitions (workload, harness).
func TestPlotHelperLinksNoC(t *testing.T) {
	t.Parallel() // go list only, beside the long parallel tests
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goBin, "list", "-deps", "contend/cmd/contend-plot").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !slices.Contains(deps, "contend/internal/plot") {
		t.Fatalf("go list -deps contend/cmd/contend-plot: %d packages, no contend/internal/plot", len(deps))
	}
	for _, p := range deps {
		switch p {
		case "runtime/cgo", "contend/bind", "contend/internal/workload", "contend/internal/harness", "contend/internal/sweepplan":
			t.Errorf("cmd/contend-plot depends on %s; keep cgo and repetitions out of the plot helper (go list -deps ./cmd/contend-plot)", p)
		}
	}
}
