// Package plot draws result files with gonum.org/v1/plot: the throughput
// curves of sweep files with their error bars and USL fits, and for plain
// result files a box-and-strip plot of one metric per file next to a
// run-order plot (samples against repetition index, for spotting drift).
//
// gonum/plot parses its fonts in a package init, which would add about a
// millisecond to every repetition child if the contend binary linked it;
// so only the contend-plot helper (cmd/contend-plot) imports this package,
// and 'contend plot' runs it.
package plot

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"contend/analysis"
	"contend/internal/results"
	"contend/internal/sweep"
	"contend/internal/units"
)

// SeriesColors are the colours of the series, in order; tests find the
// series by them.
var SeriesColors = []color.RGBA{
	{0x1F, 0x77, 0xB4, 0xFF}, // blue
	{0xD6, 0x27, 0x28, 0xFF}, // red
	{0x2C, 0xA0, 0x2C, 0xFF}, // green
	{0x94, 0x67, 0xBD, 0xFF}, // purple
	{0xFF, 0x7F, 0x0E, 0xFF}, // orange
	{0x8C, 0x56, 0x4B, 0xFF}, // brown
	{0xE3, 0x77, 0xC2, 0xFF}, // pink
	{0x17, 0xBE, 0xCF, 0xFF}, // cyan
}

// MaxSeries is the number of series a plot can tell apart.
var MaxSeries = len(SeriesColors)

// Input is one file to draw.
type Input struct {
	Path string
	File *results.File
}

// Options configures Draw.
type Options struct {
	// Metric to draw: "" means the throughput of sweep files and the
	// primary metric of plain files.
	Metric string
}

// Formats maps output file extensions to gonum/plot formats.
var Formats = map[string]string{".svg": "svg", ".png": "png"}

// Draw draws files to out, in the format of its extension (.svg or .png).
// Files must be all sweeps or all plain result files.
func Draw(out string, files []Input, opt Options) error {
	format, ok := Formats[strings.ToLower(filepath.Ext(out))]
	if !ok {
		return fmt.Errorf("%s: unknown image format %q; accepted: .svg, .png", out, filepath.Ext(out))
	}
	if len(files) == 0 {
		return fmt.Errorf("no file to plot")
	}
	sweeps := 0
	for _, in := range files {
		if in.File.Kind == "sweep" {
			sweeps++
		}
	}
	var c vg.CanvasWriterTo
	var err error
	switch {
	case sweeps == len(files):
		c, err = curves(format, files, opt)
	case sweeps == 0:
		c, err = samples(format, files, opt)
	default:
		return fmt.Errorf("cannot plot sweep files and plain result files together")
	}
	if err != nil {
		return err
	}
	return writeFile(out, c)
}

func newCanvas(format string, w, h vg.Length) vg.CanvasWriterTo {
	if format == "svg" {
		return &svgCanvas{Canvas: vgsvg.New(w, h)} // text that degrades: svgtext.go
	}
	return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120))}
}

// LegendName is the legend entry of a file: its label (or file name) and
// kernel release.
func LegendName(in Input) string {
	name := in.File.Label
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(in.Path), filepath.Ext(in.Path))
	}
	if k := in.File.Env["kernel.release"]; k != "" {
		name += " (" + k + ")"
	}
	return name
}

// points are medians with error bars, in display units.
type points struct {
	x, y, lo, hi []float64
}

func (p points) Len() int                    { return len(p.x) }
func (p points) XY(i int) (float64, float64) { return p.x[i], p.y[i] }
func (p points) YError(i int) (float64, float64) {
	return p.y[i] - p.lo[i], p.hi[i] - p.y[i]
}

// curves draws throughput against the swept parameter, one series per
// file: medians, error bars (95% CI of the median, or min-max where n is
// too small for it) and the USL fit.
func curves(format string, files []Input, opt Options) (vg.CanvasWriterTo, error) {
	if len(files) > MaxSeries {
		return nil, fmt.Errorf("at most %d files in one plot", MaxSeries)
	}
	var as []*sweep.Analysis
	var metric results.Metric
	ref := 0.0
	for _, in := range files {
		a, err := sweep.Analyze(in.File)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", in.Path, err)
		}
		name := opt.Metric
		if name == "" {
			name = a.Throughput.Name
			if name == "" {
				name = in.File.Primary
			}
		}
		m, ok := in.File.Metric(name)
		if !ok {
			return nil, fmt.Errorf("%s: no metric %q", in.Path, name)
		}
		if metric.Name != "" && (m.Name != metric.Name || m.Unit != metric.Unit) {
			return nil, fmt.Errorf("%s: metric %s (%s) differs from %s (%s) of the first file", in.Path, m.Name, m.Unit, metric.Name, metric.Unit)
		}
		if len(a.Swept) == 0 {
			return nil, fmt.Errorf("%s: the sweep varies no parameter", in.Path)
		}
		if len(as) > 0 && a.Swept[0] != as[0].Swept[0] {
			return nil, fmt.Errorf("%s: sweeps %s, the first file %s", in.Path, a.Swept[0], as[0].Swept[0])
		}
		metric = m
		as = append(as, a)
		for _, p := range a.Points {
			if s, ok := p.Summaries[m.Name]; ok {
				ref = math.Max(ref, math.Abs(s.Median))
			}
		}
	}
	sc := units.ScaleFor(metric.Unit, ref)
	p := plot.New()
	x := as[0].XParam
	p.Title.Text = fmt.Sprintf("%s: %s against %s", files[0].File.Workload, metric.Name, x.Name)
	p.X.Label.Text = axisLabel(x.Name, x.Unit, x.Name)
	p.Y.Label.Text = axisLabel(metric.Name, sc.Unit, "")
	p.X.Min, p.Y.Min = 0, 0
	p.Y.Tick.Marker = trimTicks{plot.DefaultTicks{}}
	p.X.Tick.Marker = trimTicks{plot.DefaultTicks{}}
	// The legend goes beside the plotting area, never on the data.
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.Padding = vg.Points(3)
	var legendNames []string
	var allX []float64
	for _, a := range as {
		for _, pt := range a.Points {
			if !math.IsNaN(pt.X) {
				allX = append(allX, pt.X)
			}
		}
	}
	logX := Geometric(allX)
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = pointTicks(allX)
	}
	xmin, xmax, ymax := math.Inf(1), 0.0, 0.0
	p.Add(plotter.NewGrid())
	var notes []string
	for i, a := range as {
		col := SeriesColors[i]
		var pts points
		for _, pt := range a.Points {
			s, ok := pt.Summaries[metric.Name]
			if !ok || math.IsNaN(pt.X) {
				continue
			}
			lo, hi := s.Min, s.Max
			if s.HasCI {
				lo, hi = s.MedianLo, s.MedianHi
			}
			pts.x = append(pts.x, pt.X)
			pts.y = append(pts.y, s.Median/sc.Div)
			pts.lo = append(pts.lo, lo/sc.Div)
			pts.hi = append(pts.hi, hi/sc.Div)
		}
		if pts.Len() == 0 {
			return nil, fmt.Errorf("%s: no successful repetition to plot", files[i].Path)
		}
		sort.Sort(byX(pts))
		xmin = math.Min(xmin, pts.x[0])
		xmax = math.Max(xmax, pts.x[len(pts.x)-1])
		for _, h := range pts.hi {
			ymax = math.Max(ymax, h)
		}
		// Series side by side, so that their error bars do not hide
		// each other: a small shift in x, drawn only.
		shown := points{x: make([]float64, pts.Len()), y: pts.y, lo: pts.lo, hi: pts.hi}
		for k, xv := range pts.x {
			shown.x[k] = shiftX(xv, i, len(as), logX, allX)
		}
		sp, err := plotter.NewScatter(shown)
		if err != nil {
			return nil, err
		}
		sp.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		eb, err := plotter.NewYErrorBars(shown)
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color, eb.LineStyle.Width = col, vg.Points(1.2)
		if a.USL != nil && metric.Name == a.Throughput.Name {
			u := *a.USL
			fn := plotter.NewFunction(func(n float64) float64 { return u.Predict(n) / sc.Div })
			fn.XMin, fn.XMax = math.Max(1, pts.x[0]), pts.x[len(pts.x)-1]
			fn.Samples = 200
			fn.LineStyle.Color, fn.LineStyle.Width = col, vg.Points(1.5)
			fitName := fmt.Sprintf("USL fit, R² = %.2f", u.R2)
			if math.IsNaN(u.R2) || u.R2 < analysis.FitPoorR2 {
				// A poor fit is drawn dashed and says so.
				fn.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				fitName = fmt.Sprintf("USL fit, poor: R² = %.2f", u.R2)
				notes = append(notes, "dashed: a poor fit (R² < "+strconv.FormatFloat(analysis.FitPoorR2, 'g', -1, 64)+")")
			}
			p.Add(fn)
			legend.Add(LegendName(files[i]), sp)
			legend.Add("  "+fitName, fn)
			legendNames = append(legendNames, LegendName(files[i]), "  "+fitName)
		} else {
			ln, err := plotter.NewLine(shown)
			if err != nil {
				return nil, err
			}
			ln.LineStyle.Color, ln.LineStyle.Width = col, vg.Points(1)
			p.Add(ln)
			legend.Add(LegendName(files[i]), sp, ln)
			legendNames = append(legendNames, LegendName(files[i]))
		}
		p.Add(eb, sp)
	}
	p.Y.Max = ymax * 1.08
	if logX {
		p.X.Min, p.X.Max = xmin/1.3, xmax*1.3
	} else {
		p.X.Max = xmax * 1.04
	}
	// Where oversubscription starts: the online CPUs of the first file's
	// machine, on thread (task, process) sweeps that go beyond them.
	if cpus, err := strconv.Atoi(files[0].File.Env["cpu.online"]); err == nil && cpus > 0 && as[0].Concurrency && float64(cpus) < xmax {
		ln, err := plotter.NewLine(plotter.XYs{{X: float64(cpus), Y: 0}, {X: float64(cpus), Y: p.Y.Max}})
		if err == nil {
			ln.LineStyle.Color = color.Gray{Y: 0x60}
			ln.LineStyle.Width = vg.Points(1)
			ln.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
			p.Add(ln)
			legend.Add(fmt.Sprintf("%d online CPUs", cpus), ln)
			legendNames = append(legendNames, fmt.Sprintf("%d online CPUs", cpus))
		}
	}
	note := "points: medians; bars: 95% CI of the median (min-max where n < 6)"
	if len(notes) > 0 {
		note += "; " + notes[0]
	}
	c := newCanvas(format, 9*vg.Inch, 4.5*vg.Inch)
	dc := draw.New(c)
	lw := legendWidth(&legend, legendNames) + vg.Points(16)
	full := dc.Max.X - dc.Min.X
	// The note goes on a line of its own under the plot: as part of the
	// axis label it would narrow the plotting area to its own width.
	sty := p.X.Label.TextStyle
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	noteH := sty.Height(note) + vg.Points(6)
	p.Draw(draw.Crop(dc, vg.Points(4), -lw, noteH, -vg.Points(6)))
	legend.Draw(draw.Crop(dc, full-lw+vg.Points(8), 0, 0, -vg.Points(28)))
	dc.FillText(sty, vg.Point{X: dc.Min.X + vg.Points(8), Y: dc.Min.Y + vg.Points(4)}, note)
	return c, nil
}

// legendWidth is the width legend l needs for the entries names.
func legendWidth(l *plot.Legend, names []string) vg.Length {
	w := vg.Length(0)
	for _, n := range names {
		w = max(w, l.TextStyle.Width(" "+n))
	}
	return w + l.ThumbnailWidth
}

// Geometric reports whether the sorted distinct values xs (at least 3,
// all positive) grow by a constant factor of 1.5 or more (1..64x2,
// locks=1000,10000,100000), or span a factor of 50 or more: such sweeps
// are drawn on a log axis, where the small points are not crushed.
func Geometric(xs []float64) bool {
	u := distinct(xs)
	if len(u) < 3 || u[0] <= 0 {
		return false
	}
	if u[len(u)-1]/u[0] >= 50 {
		return true
	}
	r := u[1] / u[0]
	if r < 1.5 {
		return false
	}
	for i := 2; i < len(u); i++ {
		if q := u[i] / u[i-1]; math.Abs(q-r) > 0.1*r {
			return false
		}
	}
	return true
}

func distinct(xs []float64) []float64 {
	u := append([]float64{}, xs...)
	sort.Float64s(u)
	out := u[:0]
	for i, v := range u {
		if i == 0 || v != u[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// shiftX moves series i of n a little to the side, so that error bars at
// the same x stay apart: 1.2% of the x range per series on a linear axis,
// a factor of 1.04 on a log axis.
func shiftX(x float64, i, n int, logX bool, all []float64) float64 {
	k := float64(i) - float64(n-1)/2
	if logX {
		return x * math.Pow(1.04, k)
	}
	u := distinct(all)
	return x + k*0.012*(u[len(u)-1])
}

// pointTicks labels a log axis at the swept values themselves.
func pointTicks(xs []float64) plot.Ticker {
	var ts plot.ConstantTicks
	for _, v := range distinct(xs) {
		ts = append(ts, plot.Tick{Value: v, Label: trimZeros(strconv.FormatFloat(v, 'f', -1, 64))})
	}
	return ts
}

// trimTicks drops needless decimals from the labels of another ticker:
// "275.00" becomes "275", "2.50" becomes "2.5".
type trimTicks struct{ plot.Ticker }

func (t trimTicks) Ticks(min, max float64) []plot.Tick {
	ts := t.Ticker.Ticks(min, max)
	for i := range ts {
		ts[i].Label = trimZeros(ts[i].Label)
	}
	return ts
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") || strings.ContainsAny(s, "eE") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

type byX points

func (p byX) Len() int           { return len(p.x) }
func (p byX) Less(i, j int) bool { return p.x[i] < p.x[j] }
func (p byX) Swap(i, j int) {
	p.x[i], p.x[j] = p.x[j], p.x[i]
	p.y[i], p.y[j] = p.y[j], p.y[i]
	p.lo[i], p.lo[j] = p.lo[j], p.lo[i]
	p.hi[i], p.hi[j] = p.hi[j], p.hi[i]
}

// series is one configuration of one plain file.
type series struct {
	name    string
	values  []float64 // measured, successful, in run order
	indexes []float64 // their repetition index (run order, from 1)
}

// samples draws, for plain result files, a box plot with the individual
// samples of one metric per series (file, or configuration of an ab file)
// and a run-order plot of the same samples against the repetition index.
func samples(format string, files []Input, opt Options) (vg.CanvasWriterTo, error) {
	var ss []series
	var metric results.Metric
	ref := 0.0
	for _, in := range files {
		f := in.File
		name := opt.Metric
		if name == "" {
			name = f.Primary
		}
		m, ok := f.Metric(name)
		if !ok {
			return nil, fmt.Errorf("%s: no metric %q", in.Path, name)
		}
		if metric.Name != "" && (m.Name != metric.Name || m.Unit != metric.Unit) {
			return nil, fmt.Errorf("%s: metric %s (%s) differs from %s (%s) of the first file", in.Path, m.Name, m.Unit, metric.Name, metric.Unit)
		}
		metric = m
		for c := range f.Configs {
			s := series{name: LegendName(in)}
			if len(f.Configs) > 1 {
				s.name = ConfigLabel(f, c)
				if len(files) > 1 {
					s.name = LegendName(in) + " " + s.name
				}
			}
			for _, r := range f.Reps {
				if r.Status != results.StatusOK || r.Warmup || r.Config != c {
					continue
				}
				if v, ok := r.Metrics.Lookup(m.Name); ok {
					s.values = append(s.values, v)
					s.indexes = append(s.indexes, float64(r.Index+1))
					ref = math.Max(ref, math.Abs(v))
				}
			}
			if len(s.values) == 0 {
				if n := f.ConfigName(c); n != "" {
					return nil, fmt.Errorf("%s: no successful repetition of %s to plot", in.Path, n)
				}
				return nil, fmt.Errorf("%s: no successful repetition to plot", in.Path)
			}
			ss = append(ss, s)
		}
	}
	if len(ss) > MaxSeries {
		return nil, fmt.Errorf("%d series: at most %d in one plot", len(ss), MaxSeries)
	}
	sc := units.ScaleFor(metric.Unit, ref)
	ylab := axisLabel(metric.Name, sc.Unit, "")

	box := plot.New()
	box.Title.Text = metric.Name + ": samples per file"
	if len(files) == 1 && len(ss) > 1 {
		box.Title.Text = metric.Name + ": samples per side"
	}
	box.Y.Tick.Marker = trimTicks{plot.DefaultTicks{}}
	box.Y.Label.Text = ylab
	box.X.Label.Text = "boxes: quartiles, whiskers 1.5 IQR; dots: every repetition"
	run := plot.New()
	run.Title.Text = metric.Name + " in run order (drift)"
	run.Y.Label.Text = ylab
	run.X.Label.Text = "repetition index (run order)"
	run.Legend.Top = true
	run.Y.Tick.Marker = trimTicks{plot.DefaultTicks{}}
	// Room above the data for the legend: it must not cover a point.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range s.values {
			lo, hi = math.Min(lo, v/sc.Div), math.Max(hi, v/sc.Div)
		}
	}
	frac := 0.08*float64(len(ss)) + 0.06
	span := hi - lo
	if span == 0 {
		span = math.Abs(hi) + 1
	}
	run.Y.Min, run.Y.Max = lo-0.05*span, hi+span*frac/(1-frac)
	box.Add(plotter.NewGrid())
	run.Add(plotter.NewGrid())
	var names []string
	for i, s := range ss {
		col := SeriesColors[i]
		vals := make(plotter.Values, len(s.values))
		xys := make(plotter.XYs, len(s.values))
		strip := make(plotter.XYs, len(s.values))
		for k, v := range s.values {
			vals[k] = v / sc.Div
			xys[k] = plotter.XY{X: s.indexes[k], Y: v / sc.Div}
			// Deterministic jitter across the box.
			strip[k] = plotter.XY{X: float64(i) + 0.25*(float64((k*37)%11)/10-0.5), Y: v / sc.Div}
		}
		bp, err := plotter.NewBoxPlot(vg.Points(36), float64(i), vals)
		if err != nil {
			return nil, err
		}
		bp.BoxStyle.Color = col
		bp.MedianStyle.Color = col
		bp.WhiskerStyle.Color = col
		bp.GlyphStyle.Color = col
		dots, err := plotter.NewScatter(strip)
		if err != nil {
			return nil, err
		}
		dots.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		box.Add(bp, dots)
		names = append(names, shortName(s.name))

		ln, pts, err := plotterLinePoints(xys)
		if err != nil {
			return nil, err
		}
		ln.LineStyle.Color, ln.LineStyle.Width = col, vg.Points(1)
		pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		run.Add(ln, pts)
		run.Legend.Add(s.name, ln, pts)
	}
	box.NominalX(names...)
	c := newCanvas(format, 10*vg.Inch, 4.5*vg.Inch)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(12), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	cs := plot.Align([][]*plot.Plot{{box, run}}, tiles, dc)
	box.Draw(cs[0][0])
	run.Draw(cs[0][1])
	return c, nil
}

func plotterLinePoints(xys plotter.XYs) (*plotter.Line, *plotter.Scatter, error) {
	ln, err := plotter.NewLine(xys)
	if err != nil {
		return nil, nil, err
	}
	sp, err := plotter.NewScatter(xys)
	return ln, sp, err
}

// shortName keeps box labels short: the label without the kernel, and
// of a long one its end, where the configurations differ.
func shortName(s string) string {
	if i := strings.Index(s, " ("); i > 0 && strings.Contains(s[i:], ")") {
		s = s[:i] + s[i+strings.Index(s[i:], ")")+1:]
	}
	if r := []rune(s); len(r) > 30 {
		s = "…" + string(r[len(r)-29:])
	}
	return s
}

// ConfigLabel names configuration c of a file with several (ab, verify):
// its name in capitals and what sets it apart from the others, such as
// "A: threads=2" or "B: tracefs.events=lock".
func ConfigLabel(f *results.File, c int) string {
	name := strings.ToUpper(f.ConfigName(c))
	var diffs []string
	for _, p := range f.Configs[c].Params {
		for o := range f.Configs {
			if o != c && paramDisplay(f.Configs[o], p.Name) != paramDisplay(f.Configs[c], p.Name) {
				diffs = append(diffs, p.Name+"="+paramDisplay(f.Configs[c], p.Name))
				break
			}
		}
	}
	seen := map[string]bool{}
	var keys []string
	for _, cf := range f.Configs {
		for k := range cf.Env {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		for o := range f.Configs {
			if o != c && f.Configs[o].Env[k] != f.Configs[c].Env[k] {
				v := f.Configs[c].Env[k]
				if v == "" {
					v = "none"
				}
				diffs = append(diffs, k+"="+v)
				break
			}
		}
	}
	if len(diffs) == 0 {
		return name
	}
	return name + ": " + strings.Join(diffs, " ")
}

// paramDisplay is the display form of parameter name in cf, "" if absent.
func paramDisplay(cf results.Config, name string) string {
	for _, p := range cf.Params {
		if p.Name == name {
			return p.Shown()
		}
	}
	return ""
}

// axisLabel is "name (unit)", or name alone when the unit adds nothing.
func axisLabel(name, unit, same string) string {
	if unit == "" || unit == same {
		return name
	}
	return name + " (" + unit + ")"
}
