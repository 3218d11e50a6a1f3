package plot

import (
	"flag"
	"fmt"
	"io"

	"contend/internal/results"
)

// Main is the contend-plot helper's command line,
//
//	contend-plot --out FILE.svg|FILE.png [--metric NAME] [--boots ABBA...] RESULT-FILE...
//
// (--boots: a campaign, one file per boot, DrawBoots; or
// contend-plot --out FILE --fleet FLEET.json: a fleet comparison, DrawFleet)
// which 'contend plot' runs after checking its arguments. It returns the
// exit status: 0, 1 for a failure, 2 for bad usage.
func Main(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("contend-plot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "image file, .svg or .png")
	metric := fs.String("metric", "", "metric to draw")
	boots := fs.String("boots", "", "a campaign: the side (A or B) of each file, one file per boot")
	fleet := fs.String("fleet", "", "a fleet comparison: the JSON of 'contend compare --by ... --format json'")
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "contend: plot: "+format+"\n", a...)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return usage("%v", err)
	}
	if *out != "" && *fleet != "" && fs.NArg() == 0 {
		if err := DrawFleet(*out, *fleet); err != nil {
			fmt.Fprintf(stderr, "contend: plot: %v\n", err)
			return 1
		}
		return 0
	}
	if *out == "" || fs.NArg() == 0 {
		return usage("usage: contend-plot --out FILE.svg|FILE.png [--metric NAME] RESULT-FILE...")
	}
	var in []Input
	for _, p := range fs.Args() {
		f, err := results.Read(p, results.WithoutOutputs)
		if err != nil {
			return usage("%v", err)
		}
		in = append(in, Input{Path: p, File: f})
	}
	draw := func() error { return Draw(*out, in, Options{Metric: *metric}) }
	if *boots != "" {
		draw = func() error { return DrawBoots(*out, in, *boots, Options{Metric: *metric}) }
	}
	if err := draw(); err != nil {
		fmt.Fprintf(stderr, "contend: plot: %v\n", err)
		return 1
	}
	return 0
}
