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
		Name:        "plot",
		Usage:       "draw result files: scalability curves, or samples and run order",
		ArgsUsage:   "FILE [FILE...] --out IMAGE.svg|IMAGE.png",
		Description: helpText("plot"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "image file to write, .svg or .png"},
			&cli.StringFlag{Name: "metric", Usage: "metric to draw (default: the throughput of sweeps, the primary metric otherwise)"},
		},
		Action: plotAction,
	}
}

func plotAction(c *cli.Context) error {
	out, metric := c.String("out"), c.String("metric")
	if c.NArg() == 0 {
		return usagef("plot: which result files? give one or more")
	}
	if err := checkPlotOut(out); err != nil {
		return err
	}
	if c.NArg() > 8 {
		return usagef("plot: %d files; at most 8 in one plot", c.NArg())
	}
	if err := checkPlotFiles(c.Args().Slice(), metric); err != nil {
		return err
	}
	args := []string{"--out", out}
	if metric != "" {
		args = append(args, "--metric", metric)
	}
	return runPlotHelper(c, "plot", append(args, c.Args().Slice()...))
}

// checkImageName refuses an image file name (of flag) that does not end
// in .svg or .png.
func checkImageName(flag, name string) error {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".svg", ".png":
		return nil
	}
	return usagef("%s: %q has an unknown image format %q; accepted: .svg, .png", flag, name, filepath.Ext(name))
}

// checkPlotOut refuses a plot's --out that is missing, not an .svg or
// .png, a directory, or in no directory.
func checkPlotOut(out string) error {
	if strings.TrimSpace(out) == "" {
		return usagef("plot: --out is required: an image file ending in .svg or .png")
	}
	if err := checkImageName("--out", out); err != nil {
		return err
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return usagef("--out: %s is a directory; accepted: an image file ending in .svg or .png", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return usagef("--out: %s: no directory %s to write it in; accepted: an image file in an existing directory", out, filepath.Dir(out))
	}
	return nil
}

// checkPlotFiles refuses result files that cannot be read, that lack
// metric (when given), or that mix sweeps and plain result files.
func checkPlotFiles(paths []string, metric string) error {
	sweeps := 0
	for _, p := range paths {
		f, err := results.Read(p, results.WithoutOutputs)
		if err != nil {
			return &usageError{err.Error()}
		}
		if f.Kind == "sweep" {
			sweeps++
		}
		if _, ok := f.Metric(metric); metric != "" && !ok {
			var names []string
			for _, m := range f.Metrics {
				names = append(names, m.Name)
			}
			return usagef("--metric: %s has no metric %q; it has: %s", p, metric, strings.Join(names, ", "))
		}
	}
	if sweeps != 0 && sweeps != len(paths) {
		return usagef("plot: cannot mix sweep files and plain result files in one plot")
	}
	return nil
}

// runPlotHelper runs contend-plot with args, its output on the
// command's; a helper that fails with a status has said why. what names
// the command in the error of a helper that cannot run.
func runPlotHelper(c *cli.Context, what string, args []string) error {
	helper, err := helperPath()
	if err != nil {
		return err
	}
	cmd := exec.Command(helper, args...)
	cmd.Stdout, cmd.Stderr = c.App.Writer, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return cli.Exit("", ee.ExitCode()) // the helper said why
		}
		return fmt.Errorf("%s: running %s: %v", what, helper, err)
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
