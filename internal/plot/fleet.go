package plot

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DrawFleet draws a fleet comparison (the JSON of 'contend compare --by
// ... --format json', whose fields are fleet.JSON's): the change of B against A on each
// group (host) in percent with its 95% interval, one colour per group,
// and a line at 0. A group without an interval is drawn as its estimate
// alone; a group without an estimate (identical values) is named on the
// axis with nothing above it.
func DrawFleet(out, jsonPath string) error {
	format, ok := Formats[strings.ToLower(filepath.Ext(out))]
	if !ok {
		return fmt.Errorf("%s: unknown image format %q; accepted: .svg, .png", out, filepath.Ext(out))
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		return err
	}
	var fj struct {
		Metric string `json:"metric"`
		By     string `json:"by"`
		Groups []struct {
			Key      string   `json:"key"`
			Change   *float64 `json:"change"`
			ChangeLo *float64 `json:"change_lo"`
			ChangeHi *float64 `json:"change_hi"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(b, &fj); err != nil {
		return fmt.Errorf("%s: not a fleet comparison (contend compare --by ... --format json): %v", jsonPath, err)
	}
	if len(fj.Groups) == 0 {
		return fmt.Errorf("%s: no group to draw", jsonPath)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: change of B against A per %s (95%% CI)", fj.Metric, strings.TrimPrefix(fj.By, "env."))
	p.Y.Label.Text = "HL change of " + fj.Metric + " (%)"
	p.Add(plotter.NewGrid())
	zero, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(fj.Groups)) - 0.5, Y: 0}})
	if err != nil {
		return err
	}
	zero.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(zero)
	var names []string
	for i, g := range fj.Groups {
		names = append(names, shortName(g.Key))
		if g.Change == nil || math.IsNaN(*g.Change) {
			continue
		}
		col := SeriesColors[i%len(SeriesColors)]
		pt := points{x: []float64{float64(i)}, y: []float64{100 * *g.Change}}
		lo, hi := pt.y[0], pt.y[0]
		if g.ChangeLo != nil && g.ChangeHi != nil {
			lo, hi = 100**g.ChangeLo, 100**g.ChangeHi
		}
		pt.lo, pt.hi = []float64{lo}, []float64{hi}
		dot, err := plotter.NewScatter(pt)
		if err != nil {
			return err
		}
		dot.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		bars, err := plotter.NewYErrorBars(pt)
		if err != nil {
			return err
		}
		bars.LineStyle.Color, bars.LineStyle.Width = col, vg.Points(1.5)
		p.Add(bars, dot)
		p.Legend.Add(shortName(g.Key), dot)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	c := newCanvas(format, 8*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.New(c))
	return writeFile(out, c)
}
