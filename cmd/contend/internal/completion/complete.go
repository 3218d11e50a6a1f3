// Package completion is contend's shell completion: the bash and zsh
// scripts, and Words, the candidates for the word being typed, read from
// the urfave/cli command tree (commands, subcommands, flags), the words of
// the enum flags (value.Enum, through Spec.Enum), the workloads'
// parameters and the evidence collectors.
package completion

import (
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliargs"
	"contend/internal/evidence"
	"contend/internal/workload"
)

// Arg is the hidden command the shell scripts call: `contend __complete
// WORD... CURRENT` prints the candidates for CURRENT, one a line; a first
// line FilesMarker asks the shell to add file names.
const (
	Arg         = "__complete"
	FilesMarker = "__files__"
)

// Spec is what Words knows beyond the command tree.
type Spec struct {
	// Help are the words after 'help', Shells those after 'completion'.
	Help, Shells []string
	// Enum returns the words of an enum flag (value.Enum.Choices), nil
	// for another flag.
	Enum func(cli.Flag) []string
	// FileFlags take a file name; EvidenceFlags an --evidence list
	// (evidence.ParseFlag); FileArgs are the commands whose arguments are
	// files.
	FileFlags, EvidenceFlags, FileArgs map[string]bool
}

// Words returns the candidates for the last of words (the word being
// completed, possibly empty) after the others, the words after "contend".
// A first candidate FilesMarker asks for file names too.
func Words(app *cli.App, s Spec, words []string) []string {
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
	cmd := visible(app.Commands, prev[i])
	if cmd == nil {
		return nil
	}
	rest := prev[i+1:]
	switch {
	case cmd.Name == "help" && len(rest) == 0:
		return s.Help
	case cmd.Name == "completion" && len(rest) == 0:
		return s.Shells
	case cmd.Name == "help" || cmd.Name == "completion":
		return nil
	}
	target, rest, words2 := subcommand(cmd, rest, cur)
	if target == nil {
		return words2
	}
	return s.forCommand(cmd, target, rest, cur)
}

// subcommand returns the subcommand of cmd that rest names (moved first
// as the parser does) and the words after it; cmd itself when it has no
// subcommands. With subcommands and none named yet, it returns nil and
// the candidates: the subcommands, or --help.
func subcommand(cmd *cli.Command, rest []string, cur string) (*cli.Command, []string, []string) {
	subs := visibleSubs(cmd)
	if len(subs) == 0 {
		return cmd, rest, nil
	}
	args := cliargs.WorkloadFirst(cmd, append([]string{"contend", cmd.Name}, rest...))[2:]
	var sub *cli.Command
	if len(args) > 0 {
		for _, s := range subs {
			if s.Name == args[0] {
				sub = s
			}
		}
	}
	switch {
	case sub != nil:
		return sub, args[1:], nil
	case len(cmd.Flags) > 0 && (len(rest) > 0 || strings.HasPrefix(cur, "-")):
		return cmd, rest, nil // flags of its own beside its subcommands (bisect)
	case strings.HasPrefix(cur, "-"):
		return nil, nil, []string{"--help"}
	}
	return nil, nil, commandNames(subs)
}

// forCommand returns the candidates for cur after rest, the words after
// target (a command, or a workload or subcommand under top).
func (s Spec) forCommand(top, target *cli.Command, rest []string, cur string) []string {
	if slices.Contains(rest, "--") {
		return []string{FilesMarker} // a program and its arguments
	}
	if n := len(rest); n > 0 && strings.HasPrefix(rest[n-1], "-") && !strings.Contains(rest[n-1], "=") {
		name := strings.TrimLeft(rest[n-1], "-")
		if f := cliargs.FindFlag(target, name); cliargs.TakesValue(f) {
			return s.flagValue(top, target, f, cur)
		}
	}
	if strings.HasPrefix(cur, "-") {
		return flagNames(target, cur)
	}
	if s.FileArgs[target.Name] {
		return []string{FilesMarker}
	}
	return nil
}

// flagValue returns the candidates for cur, the value of flag f of
// target (a command, or a workload or subcommand under top): the words of
// an enum flag, the choices of the workload's parameter, an --evidence
// list, the workload's flags for ab's --a and --b, or files.
func (s Spec) flagValue(top, target *cli.Command, f cli.Flag, cur string) []string {
	long := f.Names()[0]
	w, isWorkload := workload.Lookup(target.Name)
	side := top.Name == "ab" && (long == "a" || long == "b")
	var enum []string
	if s.Enum != nil {
		enum = s.Enum(f)
	}
	switch {
	case s.FileFlags[long] || (top.Name == "compare" && (long == "a" || long == "b")):
		return []string{FilesMarker}
	case enum != nil:
		return enum
	case s.EvidenceFlags[long]:
		return evidenceWords(cur)
	case isWorkload && side:
		return sideWords(w, cur)
	case isWorkload:
		if p, ok := w.Param(long); ok {
			return p.Choices
		}
	case side:
		return []string{FilesMarker} // ab exec: a program and its arguments
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
	return slices.Compact(out)
}

// visible returns the visible command of cs called name (or an alias),
// the last one when several are.
func visible(cs []*cli.Command, name string) *cli.Command {
	var cmd *cli.Command
	for _, c := range cs {
		if c.HasName(name) && !c.Hidden {
			cmd = c
		}
	}
	return cmd
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
