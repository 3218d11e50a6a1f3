package main

import (
	"fmt"
	"strings"
	"time"

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
				describe(w, wl, false)
			}
			return nil
		},
	}
}

func describe(w interface{ Write([]byte) (int, error) }, wl *workload.Workload, long bool) {
	fmt.Fprintf(w, "%s: %s\n", wl.Name, wl.Summary)
	fmt.Fprintf(w, "  from: %s\n", wrap(wl.Provenance, 72, "        "))
	if long {
		fmt.Fprintf(w, "\n%s\n\n", wl.Doc)
	}
	if long {
		fmt.Fprintln(w, "parameters (default in brackets):")
	}
	indent := strings.Repeat(" ", 27)
	for _, p := range wl.Params {
		name := "--" + p.Name + " [" + p.DefaultString() + "]"
		if len(name) > 24 {
			// Too long for its column: on a line of its own.
			name += "\n" + indent[:26]
		}
		fmt.Fprintf(w, "  %-24s %s\n", name, wrap(p.Usage, 52, indent))
	}
	if long {
		fmt.Fprintln(w, "\nmetrics:")
		for _, x := range wl.Metrics {
			head := x.Unit
			if x.Better != "" {
				head += ", " + string(x.Better) + " is better"
			}
			fmt.Fprintf(w, "  %s [%s]\n      %s\n", x.Name, head, wrap(x.Desc, 72, "      "))
		}
		fmt.Fprintln(w, "  (and every repetition's process metrics: real, user, sys, cpu, maxrss, ...;")
		fmt.Fprintln(w, "  maxrss is not the original's: see 'contend help maxrss')")
		if wl.Timeout != nil {
			if v, err := wl.Resolve(nil); err == nil {
				fmt.Fprintf(w, "\ntimeout: each repetition is killed after %s at the defaults (derived from\nthe parameters; --timeout overrides it)\n", wl.Timeout(v).Round(time.Second))
			}
		}
	}
}

// wrap breaks s into lines of at most width columns of text; lines after
// the first start with indent, which is not counted (the caller prints a
// prefix as wide before the first line).
func wrap(s string, width int, indent string) string { return textfmt.WrapRest(s, width, indent) }
