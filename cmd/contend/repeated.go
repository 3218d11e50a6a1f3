package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// repeatedFlag refuses a flag that takes one value given twice with
// different values ('run faultme --threads 4 --threads 8'): the flag
// package keeps the last one without a word, and the first was the
// user's too. The same value twice is harmless and taken. Repeatable
// flags (--metric, --param, compare's --a/--b) and booleans are not
// checked. It reads the command line as reorderArgs does: the command's
// own flags, up to "--" or, for a command whose arguments are a program
// (exec, ab exec), up to the program.
func repeatedFlag(app *cli.App, args []string) error {
	cmd, path, rest := flagCommand(app, args)
	if cmd == nil {
		return nil
	}
	seen := map[string]string{}
	for ; len(rest) > 0 && rest[0] != "--"; rest = rest[1:] {
		a := rest[0]
		if !isFlagWord(a) {
			if programArgs[path] {
				break // the program and its own flags
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := findFlag(cmd, name)
		if f == nil || !takesValue(f) || repeatable(f) {
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
			return usagef("%s: given twice (%q, then %q); give it once", typed, old, val)
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
		args = workloadFirst(cmd, args)
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

// repeatable reports whether f collects every value it is given.
func repeatable(f cli.Flag) bool {
	switch f := f.(type) {
	case *wordsFlag, *cli.StringSliceFlag:
		return true
	case *cli.GenericFlag:
		_, ok := f.Value.(*paramListFlag)
		return ok
	}
	return false
}
