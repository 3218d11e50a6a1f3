package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"contend/internal/textfmt"
	"contend/internal/workload"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:        "list",
		Usage:       "list the workloads with their provenance and default parameters",
		Description: helpText("list"),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("list takes no arguments; for one workload use 'contend help %s'", c.Args().First())
			}
			w := c.App.Writer
			for i, wl := range workload.All() {
				if i > 0 {
					fmt.Fprintln(w)
				}
				wl.Describe(w, false)
			}
			return nil
		},
	}
}

// wrap breaks s into lines of at most width columns of text; lines after
// the first start with indent, which is not counted (the caller prints a
// prefix as wide before the first line).
func wrap(s string, width int, indent string) string { return textfmt.WrapRest(s, width, indent) }
