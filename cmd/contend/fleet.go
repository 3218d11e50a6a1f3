package main

import (
	"github.com/urfave/cli/v2"

	"contend/internal/comparison"
	"contend/internal/fleet"
	"contend/internal/plothelper"
)

// runFleetCompare is 'contend compare --by KEY': the files grouped by host
// or environment key, B against A within each group (fleet.Build).
func runFleetCompare(c *cli.Context, opt comparison.Options, format string) error {
	by, plotOut, err := fleetFlags(c, format)
	if err != nil {
		return err
	}
	fs := &fleet.Files{Status: c.String("hosts"), Warn: c.App.ErrWriter}
	if err := addFleetFiles(c, fs, by); err != nil {
		return err
	}
	var expected []fleet.Host
	if fs.Status != "" {
		if expected, err = fleet.ReadStatus(fs.Status); err != nil {
			return usagef("--hosts: %v", err)
		}
	}
	groups, err := fleet.Groups(fs.Items, by)
	if err != nil {
		return &usageError{err.Error()}
	}
	fr, err := fleet.Build(by, groups, expected, opt)
	if err != nil {
		return inputError(err)
	}
	if err := fr.Write(c.App.Writer, format); err != nil {
		return err
	}
	if plotOut != "" {
		return drawFleet(c, fr, plotOut)
	}
	return nil
}

// fleetFlags checks --by, the --format it accepts and --plot.
func fleetFlags(c *cli.Context, format string) (by, plotOut string, err error) {
	by = c.String("by")
	if err := fleet.CheckBy(by); err != nil {
		return "", "", &usageError{err.Error()}
	}
	if format != "text" && format != "json" {
		return "", "", usagef("--format: %q is not accepted with --by; accepted: text, json", format)
	}
	if err := noDetail(c, "a fleet's report (--by)"); err != nil {
		return "", "", err
	}
	plotOut = c.String("plot")
	if plotOut != "" {
		if err := plothelper.CheckImageName("--plot", plotOut); err != nil {
			return "", "", err
		}
	}
	return by, plotOut, nil
}

// addFleetFiles adds the files of --a and --b, else of the arguments.
func addFleetFiles(c *cli.Context, fs *fleet.Files, by string) error {
	as, bs, err := givenSides(c)
	switch {
	case err != nil:
		return err
	case len(as) > 0:
		err = fs.Add(as, 'A')
		if err == nil {
			err = fs.Add(bs, 'B')
		}
	case c.NArg() == 0:
		return usagef("compare --by %s: which result files? give files or a results directory (results/HOST/...)", by)
	default:
		err = fs.Add(c.Args().Slice(), 0)
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	return nil
}

// drawFleet has the contend-plot helper draw the fleet report
// (plothelper.Fleet).
func drawFleet(c *cli.Context, fr *fleet.Report, out string) error {
	return plotError(plothelper.Fleet(c.App.Writer, c.App.ErrWriter, fr, out))
}
