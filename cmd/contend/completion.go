package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/evidence"
	"contend/internal/workload"
)

// completeArg is the hidden command the shell scripts call: `contend
// __complete WORD... CURRENT` prints the candidates for CURRENT, one a
// line; a first line filesMarker asks the shell to add file names.
const (
	completeArg = "__complete"
	filesMarker = "__files__"
)

const bashCompletion = `# bash completion for contend: source <(contend completion bash)
_contend_complete() {
	local cur="${COMP_WORDS[COMP_CWORD]}" words IFS=$'\n'
	words=$("${COMP_WORDS[0]}" ` + completeArg + ` "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	COMPREPLY=()
	if [[ "$words" == ` + filesMarker + `* ]]; then
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		words="${words#` + filesMarker + `}"
	fi
	COMPREPLY+=($(compgen -W "$words" -- "$cur"))
	return 0
}
complete -F _contend_complete contend
`

const zshCompletion = `#compdef contend
# zsh completion for contend: source <(contend completion zsh)
_contend() {
	local -a opts
	opts=("${(@f)$(${words[1]} ` + completeArg + ` ${words[@]:1:$CURRENT-1} 2>/dev/null)}")
	if [[ "${opts[1]}" == ` + filesMarker + ` ]]; then
		shift opts
		_files
	fi
	opts=(${opts:#})
	(( ${#opts} )) && compadd -- $opts
}
compdef _contend contend
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash or zsh)",
		ArgsUsage: "bash|zsh",
		Description: `Prints a script that completes contend's commands, workloads, flags, the
values of flags such as --format, --variant or --thp, and result files.

Examples:
   source <(contend completion bash)      in ~/.bashrc
   source <(contend completion zsh)       in ~/.zshrc`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("completion takes one shell, got %d arguments (%s); accepted: %s", c.NArg(), strings.Join(c.Args().Slice(), " "), strings.Join(shells, ", "))
			}
			switch c.Args().First() {
			case shells[0]:
				fmt.Fprint(c.App.Writer, bashCompletion)
			case shells[1]:
				fmt.Fprint(c.App.Writer, zshCompletion)
			default:
				return usagef("completion: which shell? accepted: %s", strings.Join(shells, ", "))
			}
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

// fileFlags take a file name.
var fileFlags = map[string]bool{
	"out": true, "o": true, "so": true, "plot": true, "hosts": true, "binary": true, "template": true,
	"a-kexec": true, "b-kexec": true, "a-initrd": true, "b-initrd": true,
}

// evidenceFlags take an --evidence list (evidence.ParseFlag).
var evidenceFlags = map[string]bool{"evidence": true, "a-evidence": true, "b-evidence": true}

// shells are the shells completion writes a script for.
var shells = []string{"bash", "zsh"}

// complete returns the candidates for the last of words (the word being
// completed, possibly empty) after the others, the words after "contend".
// A first candidate filesMarker asks for file names too.
func complete(app *cli.App, words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	prev, cur := words[:len(words)-1], words[len(words)-1]
	i := 0
	for i < len(prev) && strings.HasPrefix(prev[i], "-") {
		i++
	}
	if i == len(prev) {
		if strings.HasPrefix(cur, "-") {
			return []string{"--help", "--version"}
		}
		return commandNames(app.Commands)
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.HasName(prev[i]) && !c.Hidden {
			cmd = c
		}
	}
	if cmd == nil {
		return nil
	}
	rest := prev[i+1:]
	switch cmd.Name {
	case "help":
		if len(rest) > 0 {
			return nil
		}
		return helpWords(app)
	case "completion":
		if len(rest) > 0 {
			return nil
		}
		return shells
	}
	target := cmd
	if subs := visibleSubs(cmd); len(subs) > 0 {
		args := workloadFirst(cmd, append([]string{"contend", cmd.Name}, rest...))[2:]
		var sub *cli.Command
		if len(args) > 0 {
			for _, s := range subs {
				if s.Name == args[0] {
					sub = s
				}
			}
		}
		if sub == nil {
			if strings.HasPrefix(cur, "-") {
				return []string{"--help"}
			}
			return commandNames(subs)
		}
		target, rest = sub, args[1:]
	}
	for _, w := range rest {
		if w == "--" {
			return []string{filesMarker} // a program and its arguments
		}
	}
	if n := len(rest); n > 0 && strings.HasPrefix(rest[n-1], "-") && !strings.Contains(rest[n-1], "=") {
		name := strings.TrimLeft(rest[n-1], "-")
		if f := findFlag(target, name); takesValue(f) {
			return flagValueWords(cmd, target, f, cur)
		}
	}
	if strings.HasPrefix(cur, "-") {
		return flagNames(target, cur)
	}
	switch target.Name {
	case "compare", "show", "plot", "import", "exec":
		return []string{filesMarker}
	}
	return nil
}

// flagValueWords returns the candidates for cur, the value of flag f of
// target (a command, or a workload or subcommand under top): the words of
// an enum flag (flagEnum), the choices of the workload's parameter, an
// --evidence list, the workload's flags for ab's --a and --b, or files.
func flagValueWords(top, target *cli.Command, f cli.Flag, cur string) []string {
	long := f.Names()[0]
	w, isWorkload := workload.Lookup(target.Name)
	switch {
	case fileFlags[long] || (top.Name == "compare" && (long == "a" || long == "b")):
		return []string{filesMarker}
	case flagEnum(f) != nil:
		return flagEnum(f).Choices()
	case evidenceFlags[long]:
		return evidenceWords(cur)
	case isWorkload && top.Name == "ab" && (long == "a" || long == "b"):
		return sideWords(w, cur)
	case isWorkload:
		if p, ok := w.Param(long); ok {
			return p.Choices
		}
	case top.Name == "ab" && (long == "a" || long == "b"):
		return []string{filesMarker} // ab exec: a program and its arguments
	}
	return nil
}

// evidenceWords returns the candidates for cur, an --evidence list being
// typed: default, none or a collector, or, after a comma, the collectors
// not yet in the list (evidence.ParseFlag reads it).
func evidenceWords(cur string) []string {
	i := strings.LastIndex(cur, ",")
	if i < 0 {
		return append([]string{"default", "none"}, evidence.Collectors...)
	}
	given := strings.Split(cur[:i], ",")
	var out []string
	for _, n := range append([]string{"default"}, evidence.Collectors...) {
		if !slices.Contains(given, n) && !evidence.Exclusive(given, n) {
			out = append(out, cur[:i+1]+n)
		}
	}
	return out
}

// sideWords returns the candidates for cur, the value of ab's --a or --b
// being typed: the flags of workload w, after what cur already holds up to
// its last space (inside a quoted '--threads 4 --mem 1GiB'). bash passes
// the word with its opening quote and matches the candidates against it
// without: they start after the quote.
func sideWords(w *workload.Workload, cur string) []string {
	head := cur[:strings.LastIndex(cur, " ")+1]
	if head != "" && (head[0] == '\'' || head[0] == '"') {
		head = head[1:]
	}
	var out []string
	for _, p := range w.Params {
		out = append(out, head+"--"+p.Name)
	}
	return out
}

// helpWords returns what 'contend help' explains: the commands, the
// workloads and the topics (helpTopics).
func helpWords(app *cli.App) []string {
	out := append(commandNames(app.Commands), workload.Names()...)
	topics := slices.Sorted(maps.Keys(helpTopics))
	return append(out, topics...)
}

// findFlag returns the flag of cmd called name, or nil.
func findFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	if name == "help" || name == "h" {
		return cli.HelpFlag
	}
	return nil
}

// flagNames returns the flags of cmd that start with cur: long names as
// --name, short ones as -x only when cur is a single dash or one letter.
func flagNames(cmd *cli.Command, cur string) []string {
	var out []string
	for _, f := range append(append([]cli.Flag{}, cmd.Flags...), cli.HelpFlag) {
		if bf, ok := f.(*cli.BoolFlag); ok && bf.Hidden {
			continue
		}
		for i, n := range f.Names() {
			ws := []string{"--" + n}
			if len(n) == 1 {
				// A short alias (-n of --runs) is typed with one
				// dash; a one-letter name of its own (ab's --a) with
				// two, or one.
				ws = []string{"-" + n}
				if i == 0 {
					ws = append(ws, "--"+n)
				}
			}
			for _, w := range ws {
				if strings.HasPrefix(w, cur) {
					out = append(out, w)
				}
			}
		}
	}
	sort.Strings(out)
	return dedupe(out)
}

// commandNames returns the names (not the aliases) of the visible commands.
func commandNames(cs []*cli.Command) []string {
	var out []string
	for _, c := range cs {
		if !c.Hidden {
			out = append(out, c.Name)
		}
	}
	return out
}

// visibleSubs returns the subcommands of cmd without urfave/cli's help.
func visibleSubs(cmd *cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, s := range cmd.Subcommands {
		if !s.Hidden && s.Name != "help" {
			out = append(out, s)
		}
	}
	return out
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
