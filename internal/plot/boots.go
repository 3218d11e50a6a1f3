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
	"contend/internal/report"
	"contend/internal/results"
)

// DrawBoots draws a campaign: files holds one result file per boot, in
// boot order, and order the side of each ("ABBA..."). Each boot's runs are
// a group of dots at its position (a short bar at their mean), side A in
// the first series colour, side B in the second.
func DrawBoots(out string, files []Input, order string, opt Options) error {
	format, ok := Formats[strings.ToLower(filepath.Ext(out))]
	if !ok {
		return fmt.Errorf("%s: unknown image format %q; accepted: .svg, .png", out, filepath.Ext(out))
	}
	if len(files) == 0 || len(files) != len(order) || strings.Trim(order, "AB") != "" {
		return fmt.Errorf("--boots %q: give one letter A or B per file (%s)", order, plural.N(len(files), "file", "files"))
	}
	name := opt.Metric
	if name == "" {
		name = files[0].File.Primary
	}
	m, ok := files[0].File.Metric(name)
	if !ok {
		return fmt.Errorf("%s: no metric %q", files[0].Path, name)
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
			return fmt.Errorf("%s: no successful repetition of %s to plot", in.Path, m.Name)
		}
		boots = append(boots, b)
	}
	sc := report.ScaleFor(m.Unit, ref)
	p := plot.New()
	p.Title.Text = m.Name + " per boot: each boot's runs, A and B coloured"
	p.Y.Label.Text = axisLabel(m.Name, sc.Unit, "")
	p.X.Label.Text = "boot (campaign order); bars: the boot's mean"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var names []string
	legend := map[byte]bool{}
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
		}
		dots, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		dots.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		mean := sum / float64(len(b.vals))
		bar, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.25, Y: mean}, {X: float64(i) + 0.25, Y: mean}})
		if err != nil {
			return err
		}
		bar.LineStyle.Color, bar.LineStyle.Width = col, vg.Points(2)
		p.Add(dots, bar)
		if !legend[b.side] {
			legend[b.side] = true
			p.Legend.Add(string(b.side), dots)
		}
		names = append(names, fmt.Sprintf("%d %c", i+1, b.side))
	}
	p.NominalX(names...)
	c := newCanvas(format, 8*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.New(c))
	return writeFile(out, c)
}
