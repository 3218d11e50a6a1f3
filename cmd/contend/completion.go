package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliargs"
	"contend/cmd/contend/internal/cliflag"
	"contend/cmd/contend/internal/completion"
	"contend/internal/workload"
)

// completeArg is the hidden command the shell scripts call, filesMarker
// the first candidate that asks the shell for file names (complete).
const (
	completeArg = completion.Arg
	filesMarker = completion.FilesMarker
)

// shells are the shells completion writes a script for.
var shells = completion.Shells

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:        "completion",
		Usage:       "print a shell completion script (bash or zsh)",
		ArgsUsage:   "bash|zsh",
		Description: helpText("completion"),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("completion takes one shell, got %d arguments (%s); accepted: %s", c.NArg(), strings.Join(c.Args().Slice(), " "), strings.Join(shells, ", "))
			}
			script, ok := completion.Script(c.Args().First())
			if !ok {
				return usagef("completion: which shell? accepted: %s", strings.Join(shells, ", "))
			}
			fmt.Fprint(c.App.Writer, script)
			return nil
		},
	}
}

func completeCommand() *cli.Command {
	return &cli.Command{
		Name:            completeArg,
		Hidden:          true,
		SkipFlagParsing: true,
		HideHelp:        true,
		HideHelpCommand: true,
		Action: func(c *cli.Context) error {
			for _, w := range complete(c.App, c.Args().Slice()) {
				fmt.Fprintln(c.App.Writer, w)
			}
			return nil
		},
	}
}

// complete returns the candidates for the last of words after the
// others (completion.Words), with what contend's commands take: the help
// words, the shells, the enum flags' words (cliflag.Choices), the flags that
// take files or an --evidence list, the commands whose arguments are
// files.
func complete(app *cli.App, words []string) []string {
	return completion.Words(app, completion.Spec{
		Help:   append(append(cliargs.VisibleNames(app.Commands), workload.Names()...), slices.Sorted(maps.Keys(helpTopics))...),
		Shells: shells,
		Enum:   cliflag.Choices,
		FileFlags: map[string]bool{
			"out": true, "o": true, "so": true, "plot": true, "hosts": true, "binary": true, "template": true,
			"a-kexec": true, "b-kexec": true, "a-initrd": true, "b-initrd": true,
		},
		EvidenceFlags: map[string]bool{"evidence": true, "a-evidence": true, "b-evidence": true},
		FileArgs:      map[string]bool{"compare": true, "show": true, "plot": true, "import": true, "exec": true},
	}, words)
}
