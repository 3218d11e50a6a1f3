package plot

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/units"
)

// DrawBoots draws a campaign: files holds one result file per boot, in
// boot order, and order the side of each ("ABBA..."). Each boot's runs are
// a group of dots at its position (a short bar at their mean), side A in
// the first series colour, side B in the second. The axes are padded so
// that no dot sits on the frame, and the legend is beside the plotting
// area, never over the last boot's dots.
func DrawBoots(out string, files []Input, order string, opt Options) error {
	format, ok := Formats[strings.ToLower(filepath.Ext(out))]
	if !ok {
		return fmt.Errorf("%s: unknown image format %q; accepted: .svg, .png", out, filepath.Ext(out))
	}
	b, err := bootsPlot(files, order, opt)
	if err != nil {
		return err
	}
	c := newCanvas(format, 8*vg.Inch, 4.5*vg.Inch)
	b.draw(draw.New(c))
	return writeFile(out, c)
}

// bootsFigure is a campaign plot and its legend, drawn beside it.
type bootsFigure struct {
	p      *plot.Plot
	legend plot.Legend
	names  []string // the legend's entries
}

// bootsPad is the part of the values' span left free above and below
// them, and bootsPadX the room, in boots, left and right of the groups
// (each spans -0.25..+0.25 of its position).
const (
	bootsPad  = 0.08
	bootsPadX = 0.6
)

func bootsPlot(files []Input, order string, opt Options) (*bootsFigure, error) {
	if len(files) == 0 || len(files) != len(order) || strings.Trim(order, "AB") != "" {
		return nil, fmt.Errorf("--boots %q: give one letter A or B per file (%s)", order, plural.N(len(files), "file", "files"))
	}
	name := opt.Metric
	if name == "" {
		name = files[0].File.Primary
	}
	m, ok := files[0].File.Metric(name)
	if !ok {
		return nil, fmt.Errorf("%s: no metric %q", files[0].Path, name)
	}
	type boot struct {
		side byte
		vals []float64
	}
	var boots []boot
	ref := 0.0
	for i, in := range files {
		b := boot{side: order[i]}
		for _, r := range in.File.Reps {
			if r.Status != results.StatusOK || r.Warmup {
				continue
			}
			if v, ok := r.Metrics.Lookup(m.Name); ok {
				b.vals = append(b.vals, v)
				ref = math.Max(ref, math.Abs(v))
			}
		}
		if len(b.vals) == 0 {
			return nil, fmt.Errorf("%s: no successful repetition of %s to plot", in.Path, m.Name)
		}
		boots = append(boots, b)
	}
	sc := units.ScaleFor(m.Unit, ref)
	p := plot.New()
	p.Title.Text = m.Name + " per boot: each boot's runs, A and B coloured"
	p.Y.Label.Text = axisLabel(m.Name, sc.Unit, "")
	p.X.Label.Text = "boot (campaign order); bars: the boot's mean"
	p.Add(plotter.NewGrid())
	f := &bootsFigure{p: p, legend: plot.NewLegend()}
	f.legend.Top, f.legend.Left = true, true
	f.legend.Padding = vg.Points(3)
	var names []string
	seen := map[byte]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, b := range boots {
		col := SeriesColors[0]
		if b.side == 'B' {
			col = SeriesColors[1]
		}
		pts := make(plotter.XYs, len(b.vals))
		sum := 0.0
		for k, v := range b.vals {
			// Deterministic jitter within the boot's group.
			pts[k] = plotter.XY{X: float64(i) + 0.3*(float64((k*37)%11)/10-0.5), Y: v / sc.Div}
			sum += v / sc.Div
			lo, hi = math.Min(lo, v/sc.Div), math.Max(hi, v/sc.Div)
		}
		dots, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		dots.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		mean := sum / float64(len(b.vals))
		bar, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.25, Y: mean}, {X: float64(i) + 0.25, Y: mean}})
		if err != nil {
			return nil, err
		}
		bar.LineStyle.Color, bar.LineStyle.Width = col, vg.Points(2)
		p.Add(dots, bar)
		if !seen[b.side] {
			seen[b.side] = true
			f.legend.Add(string(b.side), dots)
			f.names = append(f.names, string(b.side))
		}
		names = append(names, fmt.Sprintf("%d %c", i+1, b.side))
	}
	p.NominalX(names...)
	// The slowest and the fastest run inside the frame, not on it.
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi)*0.1, 1e-9)
	}
	p.Y.Min, p.Y.Max = lo-bootsPad*span, hi+bootsPad*span
	p.X.Min, p.X.Max = -bootsPadX, float64(len(boots)-1)+bootsPadX
	return f, nil
}

// draw draws the figure on dc: the plot on the left, the legend in a
// column of its own on the right. It returns the plotting area and the
// legend's rectangle.
func (f *bootsFigure) draw(dc draw.Canvas) (data, legend vg.Rectangle) {
	lw := legendWidth(&f.legend, f.names) + vg.Points(16)
	full := dc.Max.X - dc.Min.X
	pc := draw.Crop(dc, vg.Points(4), -lw, vg.Points(4), -vg.Points(6))
	f.p.Draw(pc)
	lc := draw.Crop(dc, full-lw+vg.Points(8), 0, 0, -vg.Points(28))
	f.legend.Draw(lc)
	return f.p.DataCanvas(pc).Rectangle, f.legend.Rectangle(lc)
}
