// Package cliargs reads contend's command lines as urfave/cli cannot:
// flags anywhere among the positional arguments (Reorder), a workload
// after flags (WorkloadFirst), a flag that takes the words after it
// (WordsFlag), and what a command's flags are (FindFlag, TakesValue).
package cliargs

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// Reorder puts the flags of the command in args before its
// positional arguments, with "--" between them: urfave/cli v2 parses
// flags with Go's flag package, which stops at the first positional
// argument, and contend takes flags anywhere ('contend run osim 64 256
// 1000000 0 0 --format original', 'contend plot a.json --out x.svg',
// 'contend compare a.json --metric time b.json'). Which words are flags,
// which take a value and which take the words after them (compare --a X
// Y) is read from the command's own Flags. A workload given after flags
// is moved first (WorkloadFirst). Commands whose arguments are a program
// and its own flags (ProgramArgs) and those that parse nothing
// (SkipFlagParsing) are left as they are.
func Reorder(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	cmd := app.Command(args[1])
	if cmd == nil || cmd.SkipFlagParsing || ProgramArgs[cmd.Name] {
		return args
	}
	i := 2
	if len(cmd.Subcommands) > 0 {
		args = WorkloadFirst(cmd, args)
		sub := cmd.Command(args[2])
		switch {
		case sub == nil && OwnArgs[cmd.Name]:
			// The command's own arguments (import LOG): its flags.
		case sub == nil || ProgramArgs[cmd.Name+" "+sub.Name]:
			return args
		default:
			cmd, i = sub, 3
		}
	}
	return append(append([]string{}, args[:i]...), reorderRest(cmd, args[i:])...)
}

// ProgramArgs names the commands whose arguments are a program and its
// own flags: contend's flags stop at the program's name.
var ProgramArgs = map[string]bool{"exec": true, "ab exec": true}

// OwnArgs names the commands with subcommands that take arguments of
// their own too: 'contend import LOG --out x' is import's, 'contend import
// mmtests EXPORT' its subcommand's.
var OwnArgs = map[string]bool{"import": true}

// WorkloadFirst moves a workload (subcommand) name given after flags to its
// place after the command: 'contend run --threads 4 faultme' is taken as
// 'contend run faultme --threads 4'. A word right after a flag that takes
// a value is that flag's value, not the workload.
func WorkloadFirst(cmd *cli.Command, args []string) []string {
	if len(args) < 3 || !strings.HasPrefix(args[2], "-") || args[2] == "-h" || args[2] == "--help" {
		return args
	}
	for i := 3; i < len(args); i++ {
		if args[i] == "--" {
			break
		}
		sub := cmd.Command(args[i])
		if sub == nil {
			continue
		}
		if prev := args[i-1]; IsFlagWord(prev) && !strings.Contains(prev, "=") && TakesValue(FindFlag(sub, strings.TrimLeft(prev, "-"))) {
			continue
		}
		out := append(append([]string{}, args[:2]...), args[i])
		out = append(out, args[2:i]...)
		return append(out, args[i+1:]...)
	}
	return args
}

// WordsFlag is a repeatable flag that takes every word after it up to the
// next flag: compare's --a A1.json A2.json. Reorder makes each word a
// --a WORD of its own, which urfave/cli collects in the StringSlice.
// A flag is one when it has the method TakesWords (compare's --a, --b).
type WordsFlag interface {
	cli.Flag
	TakesWords()
}

// TakesValue reports whether the flag f takes a value (false for a
// boolean flag and for nil, a flag the command does not have).
func TakesValue(f cli.Flag) bool {
	df, ok := f.(cli.DocGenerationFlag)
	return ok && df.TakesValue()
}

// IsFlagWord reports whether a reads as a flag: a dash and more, and not
// a negative number (osim's positional arguments).
func IsFlagWord(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(a, 64)
	return err != nil
}

// reorderRest puts the flags of cmd in rest before its positional arguments.
func reorderRest(cmd *cli.Command, rest []string) []string {
	var flags, pos []string
	words := "" // the WordsFlag the words that follow go to
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case !IsFlagWord(a) && words != "":
			flags = append(flags, "--"+words, a)
		case !IsFlagWord(a):
			pos = append(pos, a)
		default:
			name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f := FindFlag(cmd, name)
			if _, ok := f.(WordsFlag); ok {
				words = f.Names()[0]
				if hasVal {
					flags = append(flags, "--"+words, val)
				}
				continue
			}
			flags = append(flags, a)
			if !hasVal && TakesValue(f) && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
		}
	}
	out := flags
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

// FindFlag returns the flag of cmd called name, or nil.
func FindFlag(cmd *cli.Command, name string) cli.Flag {
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

// VisibleNames returns the names (not the aliases) of the commands of cs
// that are not hidden.
func VisibleNames(cs []*cli.Command) []string {
	var out []string
	for _, c := range cs {
		if !c.Hidden {
			out = append(out, c.Name)
		}
	}
	return out
}
