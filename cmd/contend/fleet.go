package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"contend/internal/comparison"
	"contend/internal/esc"
	"contend/internal/fleet"
	"contend/internal/plothelper"
)

// runFleetCompare is 'contend compare --by KEY': the files grouped by host
// or environment key, B against A within each group (fleet.Compare).
func runFleetCompare(c *cli.Context, opt comparison.Options, format string) error {
	if err := fleet.CheckRequest(c.String("by"), format); err != nil {
		return &usageError{err.Error()}
	}
	if err := noDetail(c, "a fleet's report (--by)"); err != nil {
		return err
	}
	plotOut := c.String("plot")
	if plotOut != "" {
		if err := plothelper.CheckImageName("--plot", plotOut); err != nil {
			return err
		}
	}
	as, bs := c.StringSlice("a"), c.StringSlice("b")
	if err := comparison.CheckSides(as, bs, c.Args().Slice()); err != nil {
		return &usageError{err.Error()}
	}
	fr, err := fleet.Compare(fleet.Request{By: c.String("by"), Hosts: c.String("hosts"), A: as, B: bs, Args: c.Args().Slice(),
		Options: opt, Warn: c.App.ErrWriter})
	if fleet.IsInput(err) {
		return &usageError{err.Error()}
	} else if err != nil {
		return err
	}
	if err := fr.Write(c.App.Writer, format); err != nil {
		return err
	}
	if plotOut != "" {
		if err := plotError(plothelper.Fleet(c.App.Writer, c.App.ErrWriter, fr, plotOut)); err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "\nplot: %s\n", esc.Line(plotOut))
	}
	return nil
}
