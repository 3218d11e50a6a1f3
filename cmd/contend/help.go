package main

import (
	"github.com/urfave/cli/v2"

	"contend/internal/workload"
)

func init() { addCommand(helpCommand) }

// helpCommand replaces urfave/cli's help command so that `contend help
// WORKLOAD` explains a workload: what it measures, provenance, parameters
// and metrics.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show help for a command, or explain a workload",
		ArgsUsage: "[COMMAND | WORKLOAD]",
		Description: `Examples:
   contend help run        the run command
   contend help faultme    what faultme measures, where it comes from, its parameters
   contend help evidence   the kernel evidence collected with every repetition`,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			if c.NArg() > 1 {
				return usagef("help takes one command or workload name")
			}
			name := c.Args().First()
			if name == "evidence" {
				writeEvidenceHelp(c.App.Writer)
				return nil
			}
			if w, ok := workload.Lookup(name); ok {
				describe(c.App.Writer, w, true)
				return nil
			}
			for _, cmd := range c.App.Commands {
				if cmd.HasName(name) {
					if l := c.Lineage(); len(l) > 1 {
						return cli.ShowCommandHelp(l[1], name)
					}
					return cli.ShowCommandHelp(c, name)
				}
			}
			return usagef("help: no command or workload %q; commands: see 'contend --help', workloads: %s", name, joinNames())
		},
	}
}
