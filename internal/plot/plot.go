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
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/sweep"
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
		return vgsvg.New(w, h)
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
	sc := report.ScaleFor(metric.Unit, ref)
	p := plot.New()
	x := as[0].XParam
	p.Title.Text = fmt.Sprintf("%s: %s against %s", files[0].File.Workload, metric.Name, x.Name)
	p.X.Label.Text = axisLabel(x.Name, x.Unit, x.Name)
	p.Y.Label.Text = axisLabel(metric.Name, sc.Unit, "")
	p.X.Min, p.Y.Min = 0, 0
	// Bottom right: under a scalability curve, away from the points.
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(6)
	p.Legend.XOffs = -vg.Points(10)
	xmax, ymax := 0.0, 0.0
	p.Add(plotter.NewGrid())
	fitted := false
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
		xmax = math.Max(xmax, pts.x[len(pts.x)-1])
		for _, h := range pts.hi {
			ymax = math.Max(ymax, h)
		}
		sp, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sp.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color, eb.LineStyle.Width = col, vg.Points(1.2)
		thumbs := []plot.Thumbnailer{sp}
		if a.USL != nil && metric.Name == a.Throughput.Name {
			u := *a.USL
			fn := plotter.NewFunction(func(n float64) float64 { return u.Predict(n) / sc.Div })
			fn.XMin, fn.XMax = math.Max(1, pts.x[0]), pts.x[len(pts.x)-1]
			fn.Samples = 200
			fn.LineStyle.Color, fn.LineStyle.Width = col, vg.Points(1.5)
			fn.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(fn)
			thumbs = append(thumbs, fn)
			fitted = true
		} else {
			ln, err := plotter.NewLine(pts)
			if err != nil {
				return nil, err
			}
			ln.LineStyle.Color, ln.LineStyle.Width = col, vg.Points(1)
			p.Add(ln)
			thumbs = append(thumbs, ln)
		}
		p.Add(eb, sp)
		p.Legend.Add(LegendName(files[i]), thumbs...)
	}
	p.X.Max, p.Y.Max = xmax*1.04, ymax*1.08
	note := "points: medians; bars: 95% CI of the median (min-max where n < 6)"
	if fitted {
		note += "; dashed: USL fit"
	}
	p.X.Label.Text += "\n" + note
	c := newCanvas(format, 7*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.Crop(draw.New(c), vg.Points(4), -vg.Points(14), vg.Points(2), -vg.Points(6)))
	return c, nil
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
				s.name += " " + f.ConfigName(c)
			}
			for _, r := range f.Reps {
				if r.Status != results.StatusOK || r.Warmup || r.Config != c {
					continue
				}
				if v, ok := r.Metrics[m.Name]; ok {
					s.values = append(s.values, v)
					s.indexes = append(s.indexes, float64(r.Index+1))
					ref = math.Max(ref, math.Abs(v))
				}
			}
			if len(s.values) == 0 {
				return nil, fmt.Errorf("%s: no successful repetition of %s to plot", in.Path, f.ConfigName(c))
			}
			ss = append(ss, s)
		}
	}
	if len(ss) > MaxSeries {
		return nil, fmt.Errorf("%d series: at most %d in one plot", len(ss), MaxSeries)
	}
	sc := report.ScaleFor(metric.Unit, ref)
	ylab := axisLabel(metric.Name, sc.Unit, "")

	box := plot.New()
	box.Title.Text = metric.Name + ": samples per file"
	box.Y.Label.Text = ylab
	box.X.Label.Text = "boxes: quartiles, whiskers 1.5 IQR; dots: every repetition"
	run := plot.New()
	run.Title.Text = metric.Name + " in run order (drift)"
	run.Y.Label.Text = ylab
	run.X.Label.Text = "repetition index (run order)"
	run.Legend.Top = true
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

// shortName keeps box labels short: the label without the kernel.
func shortName(s string) string {
	if i := strings.Index(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		s = s[:i] + s[strings.LastIndex(s, ")")+1:]
	}
	if len(s) > 24 {
		s = s[:23] + "…"
	}
	return s
}

// axisLabel is "name (unit)", or name alone when the unit adds nothing.
func axisLabel(name, unit, same string) string {
	if unit == "" || unit == same {
		return name
	}
	return name + " (" + unit + ")"
}
