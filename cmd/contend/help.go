package main

import (
	"embed"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/workload"
)

// helpCommand replaces urfave/cli's help command so that `contend help
// WORKLOAD` explains a workload: what it measures, provenance, parameters
// and metrics.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:        "help",
		Aliases:     []string{"h"},
		Usage:       "show help for a command, or explain a workload",
		ArgsUsage:   "[COMMAND | WORKLOAD]",
		Description: helpText("help"),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c) // its template ends with topicsText
			}
			if c.NArg() > 1 {
				return usagef("help takes one command or workload name")
			}
			name := c.Args().First()
			if topic, ok := helpTopics[name]; ok {
				topic(c.App.Writer)
				return nil
			}
			if w, ok := workload.Lookup(name); ok {
				w.Describe(c.App.Writer, true)
				return nil
			}
			for _, cmd := range c.App.Commands {
				if cmd.HasName(name) {
					// What 'contend NAME --help' prints, by the same path:
					// urfave/cli's ShowCommandHelp renders a command
					// not yet set up, without its subcommands and flags.
					return c.App.RunContext(c.Context, []string{c.App.Name, cmd.Name, "--help"})
				}
			}
			return usagef("help: no command or workload %q; commands: see 'contend --help', workloads: %s", name, joinNames())
		},
	}
}

// helpTopics are the explanations `contend help TOPIC` prints, each
// written by its function.
var helpTopics = map[string]func(io.Writer){
	"evidence": writeEvidenceHelp,
	"maxrss":   writeMaxrssHelp,
}

// helpTopicUsage says in one line what each of helpTopics explains (the
// TOPICS of `contend help` and `contend --help`).
var helpTopicUsage = map[string]string{
	"evidence": "kernel evidence per repetition: its collectors, metrics and costs",
	"maxrss":   "what the maxrss process metric includes",
}

// topicsText lists the help topics, one a line, as `contend help` and
// `contend --help` end (the app's help template, newApp).
func topicsText() string {
	var b strings.Builder
	b.WriteString("TOPICS (contend help TOPIC; contend help WORKLOAD explains a workload):\n")
	for _, k := range slices.Sorted(maps.Keys(helpTopics)) {
		fmt.Fprintf(&b, "   %-10s %s\n", k, helpTopicUsage[k])
	}
	return b.String()
}

// writeMaxrssHelp prints `contend help maxrss`.
func writeMaxrssHelp(w io.Writer) { fmt.Fprintln(w, helpText("maxrss")) }

// helpFiles are the longer descriptions of the commands and the topics,
// help/NAME.txt: what --help and 'contend help NAME' print, one folder for
// every command.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText returns the description help/name.txt, without its last
// newline.
func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("contend: no help text " + name) // a build without the file
	}
	return strings.TrimSuffix(string(b), "\n")
}
