package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/results"
)

// PlotHelper is the program that draws; see helperPath.
const PlotHelper = "contend-plot"

func plotCommand() *cli.Command {
	return &cli.Command{
		Name:      "plot",
		Usage:     "draw result files: scalability curves, or samples and run order",
		ArgsUsage: "FILE [FILE...] --out IMAGE.svg|IMAGE.png",
		Description: `Sweep files: the throughput (or --metric) of each file against the swept
parameter, medians with 95% CI error bars (min-max where n is too small for
an interval) and the fitted USL curve, one colour per file, the legend naming
each file's label and kernel release.

Plain result files (run, ab): a box plot with every repetition of the primary
metric (or --metric) per file (per configuration of an ab file), next to the
same samples against the repetition index, to spot drift.

The format follows the extension of --out: .svg or .png. The drawing is done
by the contend-plot helper (installed next to contend by 'make build'), so
that the contend binary, which is also every repetition's child, stays small.

Examples:
   contend plot rt.json rtm.json --out scaling.svg
   contend plot before.json after.json --out ab.png --metric cpu`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "image file to write, .svg or .png"},
			&cli.StringFlag{Name: "metric", Usage: "metric to draw (default: the throughput of sweeps, the primary metric otherwise)"},
		},
		Action: plotAction,
	}
}

func plotAction(c *cli.Context) error {
	out := c.String("out")
	if c.NArg() == 0 {
		return usagef("plot: which result files? give one or more")
	}
	if strings.TrimSpace(out) == "" {
		return usagef("plot: --out is required: an image file ending in .svg or .png")
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".svg", ".png":
	default:
		return usagef("--out: %q has an unknown image format %q; accepted: .svg, .png", out, filepath.Ext(out))
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return usagef("--out: %s is a directory; accepted: an image file ending in .svg or .png", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return usagef("--out: %s: no directory %s to write it in; accepted: an image file in an existing directory", out, filepath.Dir(out))
	}
	if c.NArg() > 8 {
		return usagef("plot: %d files; at most 8 in one plot", c.NArg())
	}
	metric := c.String("metric")
	sweeps := 0
	for _, p := range c.Args().Slice() {
		f, err := results.Read(p, results.WithoutOutputs)
		if err != nil {
			return &usageError{err.Error()}
		}
		if f.Kind == "sweep" {
			sweeps++
		}
		if metric != "" {
			if _, ok := f.Metric(metric); !ok {
				var names []string
				for _, m := range f.Metrics {
					names = append(names, m.Name)
				}
				return usagef("--metric: %s has no metric %q; it has: %s", p, metric, strings.Join(names, ", "))
			}
		}
	}
	if sweeps != 0 && sweeps != c.NArg() {
		return usagef("plot: cannot mix sweep files and plain result files in one plot")
	}
	helper, err := helperPath()
	if err != nil {
		return err
	}
	args := []string{"--out", out}
	if metric != "" {
		args = append(args, "--metric", metric)
	}
	args = append(args, c.Args().Slice()...)
	cmd := exec.Command(helper, args...)
	cmd.Stdout, cmd.Stderr = c.App.Writer, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return cli.Exit("", ee.ExitCode()) // the helper said why
		}
		return fmt.Errorf("plot: running %s: %v", helper, err)
	}
	return nil
}

// helperPath finds contend-plot: $CONTEND_PLOT_HELPER, else next to this
// executable, else on PATH.
func helperPath() (string, error) {
	if p := os.Getenv("CONTEND_PLOT_HELPER"); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), PlotHelper)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(PlotHelper); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("plot: the %s helper is not installed next to contend or on PATH; build it with 'make build' or 'go build -o bin/ ./cmd/contend-plot'", PlotHelper)
}
