package plot

import (
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"contend/internal/results"
)

// sweepFile is a synthetic sweep of threads following the USL.
func sweepFile(label, kernel string, lambda float64, n int) *results.File {
	threads := []int{1, 2, 4, 8, 16}
	f := &results.File{
		Format: results.FormatName, Version: results.FormatVersion, Kind: "sweep", Workload: "faultme",
		Label: label, Primary: "time", Start: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC),
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "throughput", Unit: "pages/s", Better: "higher"}},
		Env:     map[string]string{"kernel.release": kernel},
		Sweep:   &results.Sweep{Params: []string{"threads"}, Order: "fixed", Rounds: n, Throughput: "throughput"},
	}
	for _, t := range threads {
		f.Configs = append(f.Configs, results.Config{Name: fmt.Sprintf("threads=%d", t),
			Params: []results.Param{{Name: "threads", Value: fmt.Sprint(t), Unit: "threads"}}})
	}
	for r := 0; r < n; r++ {
		for c, t := range threads {
			N := float64(t)
			x := lambda * N / (1 + 0.05*(N-1) + 0.003*N*(N-1)) * (1 + 0.02*math.Sin(float64(7*r+c)))
			f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Config: c, Round: r, Status: results.StatusOK,
				Metrics: results.ValuesOf(map[string]float64{"time": 1e9 * 1000 / x, "throughput": x})})
		}
	}
	return f
}

// runFile is a synthetic plain run with a slow drift.
func runFile(label string, base float64, n int) *results.File {
	f := &results.File{
		Format: results.FormatName, Version: results.FormatVersion, Kind: "run", Workload: "faultme",
		Label: label, Primary: "time", Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}},
		Env: map[string]string{"kernel.release": "6.1.0"}, Configs: []results.Config{{}},
	}
	for i := 0; i < n; i++ {
		f.Reps = append(f.Reps, results.Rep{Index: i, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": base * (1 + 0.01*float64(i) + 0.03*math.Cos(float64(i)))})})
	}
	return f
}

var colorRE = regexp.MustCompile(`#[0-9A-Fa-f]{6}`)

// svgInfo parses an SVG: the text of every <text> element, the series
// colours used, and the number of dashed paths per series colour.
func svgInfo(t *testing.T, path string) (texts []string, colors map[int]bool, dashed map[int]int) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	dec := xml.NewDecoder(fh)
	colors, dashed = map[int]bool{}, map[int]int{}
	inText, root := false, ""
	var cur strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not valid XML: %v", path, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = e.Name.Local
			}
			if e.Name.Local == "text" {
				inText = true
				cur.Reset()
			}
			for _, a := range e.Attr {
				for _, c := range colorRE.FindAllString(a.Value, -1) {
					for i, sc := range SeriesColors {
						if strings.EqualFold(c, fmt.Sprintf("#%02X%02X%02X", sc.R, sc.G, sc.B)) {
							colors[i] = true
							if strings.Contains(a.Value, "stroke-dasharray") && strings.Contains(a.Value, "stroke:"+c) {
								dashed[i]++
							}
						}
					}
				}
			}
		case xml.CharData:
			if inText {
				cur.Write(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" {
				inText = false
				texts = append(texts, strings.TrimSpace(cur.String()))
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return texts, colors, dashed
}

// pngSeries decodes a PNG and returns which series colours cover at
// least 30 pixels exactly (the filled point markers do).
func pngSeries(t *testing.T, path string) map[int]bool {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatalf("%s is not a valid PNG: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() < 400 || b.Dy() < 200 {
		t.Errorf("image %dx%d is too small", b.Dx(), b.Dy())
	}
	count := make([]int, len(SeriesColors))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			for i, c := range SeriesColors {
				if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(bb>>8) == c.B {
					count[i]++
				}
			}
		}
	}
	got := map[int]bool{}
	for i, n := range count {
		if n >= 30 {
			got[i] = true
		}
	}
	return got
}

func count(xs []string, s string) int {
	n := 0
	for _, x := range xs {
		if x == s {
			n++
		}
	}
	return n
}

func TestCurvesSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	in := []Input{
		{Path: "rt.json", File: sweepFile("rt6", "6.1.0-rt", 1e6, 3)},
		{Path: "rtm.json", File: sweepFile("", "6.2.0", 1.3e6, 6)},
		{Path: "x/third.json", File: sweepFile("third", "6.3.0", 0.8e6, 2)},
	}
	svg := filepath.Join(dir, "c.svg")
	if err := Draw(svg, in, Options{}); err != nil {
		t.Fatal(err)
	}
	texts, colors, dashed := svgInfo(t, svg)
	for _, name := range []string{"rt6 (6.1.0-rt)", "rtm (6.2.0)", "third (6.3.0)"} {
		if count(texts, name) != 1 {
			t.Errorf("legend entry %q appears %d times; texts %q", name, count(texts, name), texts)
		}
	}
	if len(colors) != 3 || !colors[0] || !colors[1] || !colors[2] {
		t.Errorf("series colours %v, want the first 3", colors)
	}
	for i := 0; i < 3; i++ {
		// Good fits are drawn solid; each says its R².
		if dashed[i] != 0 {
			t.Errorf("series %d: %d dashed paths, want 0 (a good fit is solid)", i, dashed[i])
		}
	}
	if n := count(texts, "USL fit, R² = 1.00"); n != 3 {
		t.Errorf("%d legend entries say the fit's R², want 3: %q", n, texts)
	}
	// 1, 2, 4, 8, 16 is geometric: a log axis labelled at the points, and
	// no tick label with needless decimals.
	for _, x := range []string{"1", "2", "4", "8", "16"} {
		if count(texts, x) < 1 {
			t.Errorf("x tick %q missing: %q", x, texts)
		}
	}
	for _, tx := range texts {
		if regexp.MustCompile(`^[0-9]+\.[0-9]*0$`).MatchString(tx) {
			t.Errorf("tick label %q has needless decimals", tx)
		}
	}
	for _, want := range []string{"threads", "throughput (M pages/s)"} {
		if count(texts, want) != 1 {
			t.Errorf("axis label %q missing from %q", want, texts)
		}
	}
	pngPath := filepath.Join(dir, "c.png")
	if err := Draw(pngPath, in[:2], Options{}); err != nil {
		t.Fatal(err)
	}
	if got := pngSeries(t, pngPath); len(got) != 2 || !got[0] || !got[1] {
		t.Errorf("PNG series colours %v, want the first 2", got)
	}
}

func TestCurveWithoutFit(t *testing.T) {
	dir := t.TempDir()
	f := sweepFile("two", "6.1", 1e6, 3)
	f.Configs = f.Configs[:2] // threads 1 and 2: too few for the USL
	var reps []results.Rep
	for _, r := range f.Reps {
		if r.Config < 2 {
			reps = append(reps, r)
		}
	}
	f.Reps = reps
	out := filepath.Join(dir, "n.svg")
	if err := Draw(out, []Input{{Path: "two.json", File: f}}, Options{Metric: "time"}); err != nil {
		t.Fatal(err)
	}
	texts, colors, dashed := svgInfo(t, out)
	if len(colors) != 1 || dashed[0] != 0 || count(texts, "time (µs)") != 1 {
		t.Errorf("colours %v dashed %v texts %q", colors, dashed, texts)
	}
}

func TestSamplesSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	in := []Input{
		{Path: "a.json", File: runFile("before", 2e6, 8)},
		{Path: "b.json", File: runFile("after", 2.4e6, 10)},
	}
	svg := filepath.Join(dir, "s.svg")
	if err := Draw(svg, in, Options{}); err != nil {
		t.Fatal(err)
	}
	texts, colors, _ := svgInfo(t, svg)
	for _, name := range []string{"before (6.1.0)", "after (6.1.0)"} {
		if count(texts, name) != 1 {
			t.Errorf("legend entry %q appears %d times; texts %q", name, count(texts, name), texts)
		}
	}
	for _, name := range []string{"before", "after", "repetition index (run order)"} {
		if count(texts, name) != 1 {
			t.Errorf("label %q appears %d times", name, count(texts, name))
		}
	}
	if count(texts, "time (ms)") != 2 {
		t.Errorf("want the y label on both panels: %q", texts)
	}
	if len(colors) != 2 {
		t.Errorf("series colours %v, want 2", colors)
	}
	pngPath := filepath.Join(dir, "s.png")
	if err := Draw(pngPath, in, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := pngSeries(t, pngPath); len(got) != 2 {
		t.Errorf("PNG series colours %v, want 2", got)
	}
}

func TestDrawErrors(t *testing.T) {
	dir := t.TempDir()
	sw := Input{Path: "s.json", File: sweepFile("s", "6.1", 1e6, 2)}
	run := Input{Path: "r.json", File: runFile("r", 1e6, 3)}
	cases := []struct {
		out  string
		in   []Input
		opt  Options
		want string
	}{
		{"x.pdf", []Input{sw}, Options{}, "unknown image format"},
		{"x.svg", []Input{sw, run}, Options{}, "cannot plot sweep files and plain result files together"},
		{"x.svg", []Input{run}, Options{Metric: "nosuch"}, `no metric "nosuch"`},
		{"x.svg", nil, Options{}, "no file"},
		// A configuration without a name (an import's) is not named
		// ("no successful repetition of  to plot").
		{"x.svg", []Input{{Path: "i.json", File: runFile("i", 1e6, 0)}}, Options{}, "i.json: no successful repetition to plot"},
	}
	for _, c := range cases {
		out := filepath.Join(dir, c.out)
		err := Draw(out, c.in, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.out, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s written despite the error", c.out)
		}
	}
}

func TestPoorFitDashedAndOnlineCPUs(t *testing.T) {
	dir := t.TempDir()
	f := sweepFile("flat", "6.1", 1e6, 6)
	f.Env["cpu.online"] = "2"
	for i := range f.Reps {
		// A flat, noisy curve: the USL cannot describe it.
		x := 1e6 * (1 + 0.3*math.Sin(float64(13*i)))
		f.Reps[i].Metrics = results.ValuesOf(map[string]float64{"time": 1e12 / x, "throughput": x})
	}
	out := filepath.Join(dir, "p.svg")
	if err := Draw(out, []Input{{Path: "flat.json", File: f}}, Options{}); err != nil {
		t.Fatal(err)
	}
	texts, _, dashed := svgInfo(t, out)
	poor := false
	for _, tx := range texts {
		poor = poor || strings.HasPrefix(tx, "USL fit, poor: R² = ")
	}
	if !poor || dashed[0] != 2 {
		t.Errorf("a poor fit must be dashed (fit + legend: %d) and say so: %q", dashed[0], texts)
	}
	if count(texts, "2 online CPUs") != 1 {
		t.Errorf("the online CPUs are not marked: %q", texts)
	}
}

func TestGeometricAndLabels(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want bool
	}{
		{[]float64{1, 2, 4, 8, 16, 32, 64}, true},
		{[]float64{1000, 10000, 100000}, true},
		{[]float64{1, 2, 3, 4}, false},
		{[]float64{10, 20, 30, 40, 50}, false},
		{[]float64{1, 2}, false},
	} {
		if got := Geometric(c.xs); got != c.want {
			t.Errorf("Geometric(%v) = %v", c.xs, got)
		}
	}
	for in, want := range map[string]string{"275.00": "275", "2.50": "2.5", "0.25": "0.25", "1e+06": "1e+06", "40": "40"} {
		if got := trimZeros(in); got != want {
			t.Errorf("trimZeros(%q) = %q, want %q", in, got, want)
		}
	}
	f := &results.File{Configs: []results.Config{
		{Name: "a", Params: []results.Param{{Name: "threads", Value: "2"}, {Name: "mem", Value: "4194304", Display: "4MiB"}}},
		{Name: "b", Params: []results.Param{{Name: "threads", Value: "8"}, {Name: "mem", Value: "4194304", Display: "4MiB"}}, Env: map[string]string{"tracefs.events": "lock"}},
	}}
	if got := ConfigLabel(f, 0); got != "A: threads=2 tracefs.events=none" {
		t.Errorf("ConfigLabel a = %q", got)
	}
	if got := ConfigLabel(f, 1); got != "B: threads=8 tracefs.events=lock" {
		t.Errorf("ConfigLabel b = %q", got)
	}
}
