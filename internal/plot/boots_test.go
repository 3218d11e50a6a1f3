package plot

import (
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"contend/internal/units"
)

// TestBootsPlotFrameAndLegend: the slowest and the fastest run are inside
// the frame (the range padded beyond them, both ways), the groups of the
// first and last boot too, and the A/B legend is beside the plotting area,
// not in it over the last boot's dots.
func TestBootsPlotFrameAndLegend(t *testing.T) {
	order := "ABBAAB"
	var in []Input
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range order {
		f := runFile("", 1e6*float64(1+i%2), 6)
		for _, r := range f.Reps {
			v, _ := r.Metrics.Lookup("time")
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		in = append(in, Input{Path: "boot.json", File: f})
	}
	b, err := bootsPlot(in, order, Options{})
	if err != nil {
		t.Fatal(err)
	}
	div := units.ScaleFor("ns", hi).Div
	lo, hi = lo/div, hi/div
	span := hi - lo
	if b.p.Y.Min > lo-0.05*span || b.p.Y.Max < hi+0.05*span {
		t.Errorf("y range [%g, %g] does not pad the runs' [%g, %g]: the extremes sit on the frame", b.p.Y.Min, b.p.Y.Max, lo, hi)
	}
	if b.p.X.Min > -0.5 || b.p.X.Max < float64(len(order)-1)+0.5 {
		t.Errorf("x range [%g, %g] cuts the first or last boot's group", b.p.X.Min, b.p.X.Max)
	}
	c := vgsvg.New(8*vg.Inch, 4.5*vg.Inch)
	data, legend := b.draw(draw.New(c))
	if legend.Min.X < data.Max.X {
		t.Errorf("legend %v overlaps the plotting area %v", legend, data)
	}
	if legend.Max.X > 8*vg.Inch || legend.Min.Y < 0 {
		t.Errorf("legend %v is off the canvas", legend)
	}
	// And through the file writer.
	if err := DrawBoots(filepath.Join(t.TempDir(), "b.svg"), in, order, Options{}); err != nil {
		t.Fatal(err)
	}
}
