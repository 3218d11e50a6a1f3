package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/tune"
	"contend/internal/value"
)

func tuneCommand() *cli.Command {
	return &cli.Command{
		Name:        "tune",
		Usage:       "set what makes runs steadier (governor, turbo, ASLR, IRQs, ...); --reset puts it back",
		ArgsUsage:   " ",
		Description: helpText("tune"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "reset", Usage: "put back every value saved by an earlier 'contend tune'"},
			&cli.StringFlag{Name: "cpus", Usage: "benchmark CPUs as a list such as 1-3 (IRQs go to the others; default every CPU but the first)"},
			enumFlag("thp", &value.Enum{Words: []string{"always", "madvise", "never"}}, "transparent huge pages: always, madvise or never (default: left as is)"),
			newFlag("perf-rate", &value.Int{N: 1, Min: 1, Max: 1000000}, "perf_event_max_sample_rate to set, from 1 to 1000000"),
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would change, change nothing"},
		},
		Action: tuneAction,
	}
}

func tuneOptions(c *cli.Context, root string) (tune.Options, error) {
	var o tune.Options
	if c.IsSet("cpus") {
		cpus, err := tune.BenchCPUs(root, c.String("cpus"))
		if err != nil {
			return o, usagef("%v", err)
		}
		o.CPUs = cpus
	}
	if c.IsSet("thp") {
		o.THP = c.String("thp") // one of the words of its value.Enum
	}
	if n, ok := c.Value("perf-rate").(int); ok { // check has no --perf-rate
		o.Sample = n
	}
	return o, nil
}

func tuneAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usagef("tune takes no arguments (got %q); see 'contend help tune'", strings.Join(c.Args().Slice(), " "))
	}
	root := tune.Root()
	if c.Bool("reset") {
		for _, f := range []string{"cpus", "thp", "dry-run", "perf-rate"} {
			if c.IsSet(f) {
				return usagef("--reset puts back the saved values: --%s does not apply", f)
			}
		}
		return tune.RunReset(c.App.Writer, root, tune.StatePath(root))
	}
	opt, err := tuneOptions(c, root)
	if err != nil {
		return err
	}
	return tune.Run(c.App.Writer, root, tune.StatePath(root), opt, c.Bool("dry-run"))
}
