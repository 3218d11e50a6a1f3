package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"contend/internal/esc"
	"contend/internal/plothelper"
	"contend/internal/plural"
)

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
	if err := plothelper.CheckOut(out); err != nil {
		return err
	}
	if c.NArg() > 8 {
		return usagef("plot: %d files; at most 8 in one plot", c.NArg())
	}
	if err := plothelper.CheckFiles(c.Args().Slice(), metric); err != nil {
		return err
	}
	args := []string{"--out", out}
	if metric != "" {
		args = append(args, "--metric", metric)
	}
	if err := runPlotHelper(c, "plot", append(args, c.Args().Slice()...)); err != nil {
		return err
	}
	// Said as campaign report says its plot: what was written.
	fmt.Fprintf(c.App.Writer, "plot: %s, from %s\n", esc.Line(out), plural.N(c.NArg(), "result file", "result files"))
	return nil
}

// runPlotHelper runs contend-plot with args (plothelper.Run), its output
// on the command's; a helper that failed with a status has said why.
func runPlotHelper(c *cli.Context, what string, args []string) error {
	return plotError(plothelper.Run(c.App.Writer, c.App.ErrWriter, what, args))
}

// plotError makes a helper that failed after saying why (a
// plothelper.Failed) exit with its status and nothing more said.
func plotError(err error) error {
	var f *plothelper.Failed
	if errors.As(err, &f) {
		return cli.Exit("", f.Code)
	}
	return err
}
