package cliargs

import (
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/workload"
)

// Repeated refuses a flag that takes one value given twice with
// different values ('run faultme --threads 4 --threads 8'): the flag
// package keeps the last one without a word, and the first was the
// user's too. The same value twice is harmless and taken. Repeatable
// flags (--metric, --param, compare's --a/--b) and booleans are not
// checked. It reads the command line as Reorder does: the command's
// own flags, up to "--" or, for a command whose arguments are a program
// (exec, ab exec), up to the program.
func Repeated(app *cli.App, args []string) error {
	cmd, path, rest := flagCommand(app, args)
	if cmd == nil {
		return nil
	}
	seen := map[string]string{}
	for ; len(rest) > 0 && rest[0] != "--"; rest = rest[1:] {
		a := rest[0]
		if !IsFlagWord(a) {
			if ProgramArgs[path] {
				break // the program and its own flags
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := FindFlag(cmd, name)
		if f == nil || !TakesValue(f) || repeatable(f) {
			continue
		}
		if !hasVal {
			if len(rest) < 2 {
				break
			}
			val, rest = rest[1], rest[1:]
		}
		key := f.Names()[0]
		if old, ok := seen[key]; ok && old != val {
			typed, _, _ := strings.Cut(a, "=") // --a as typed, not -a
			return workload.Usagef("%s: given twice (%q, then %q); give it once", typed, old, val)
		}
		seen[key] = val
	}
	return nil
}

// flagCommand returns the command (or workload subcommand) whose flags
// args give, its path ("run faultme") and its arguments; a nil command
// when there is nothing to check: no such command, one that parses no
// flags, or help asked for.
func flagCommand(app *cli.App, args []string) (*cli.Command, string, []string) {
	if len(args) < 3 {
		return nil, "", nil
	}
	cmd := app.Command(args[1])
	if cmd == nil || cmd.SkipFlagParsing {
		return nil, "", nil
	}
	path, i := cmd.Name, 2
	if len(cmd.Subcommands) > 0 {
		args = WorkloadFirst(cmd, args)
		sub := cmd.Command(args[2])
		if sub == nil {
			return nil, "", nil
		}
		cmd, path, i = sub, path+" "+sub.Name, 3
	}
	for _, a := range args[i:] {
		if a == "--" {
			break
		}
		if a == "--help" || a == "-h" {
			return nil, "", nil // help is shown whatever else is given
		}
	}
	return cmd, path, args[i:]
}

// RepeatableValue marks a flag value that collects every value it is
// given (sweep's --param NAME=LIST).
type RepeatableValue interface{ Repeatable() }

// repeatable reports whether f collects every value it is given: a words
// flag, a string slice, or a RepeatableValue.
func repeatable(f cli.Flag) bool {
	switch f := f.(type) {
	case WordsFlag, *cli.StringSliceFlag:
		return true
	case *cli.GenericFlag:
		_, ok := f.Value.(RepeatableValue)
		return ok
	}
	return false
}
