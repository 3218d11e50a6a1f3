package cliargs

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// ProgramFlagsWarning returns the warning to print before exec or ab exec
// runs about the words after the program that are contend's own flags, or
// "": without "--", contend's flags stop at the program's name
// (ProgramArgs) and 'contend exec ./prog --no-lock' passes --no-lock to
// ./prog. With "--" the command line says where the program starts, and
// nothing is said.
func ProgramFlagsWarning(app *cli.App, args []string) string {
	cmd, i := programCommand(app, args)
	if cmd == nil {
		return ""
	}
	i, ok := programStart(cmd, args, i)
	if !ok || i >= len(args) {
		return ""
	}
	prog := args[i]
	var own []string
	for _, a := range args[i+1:] {
		if IsFlagWord(a) && flagOf(cmd, a) != nil {
			w, _, _ := strings.Cut(a, "=")
			own = append(own, w)
		}
	}
	if len(own) == 0 {
		return ""
	}
	words := strings.Join(own, " ")
	return fmt.Sprintf("warning: %s after the program %s %s passed to %s, not read by contend (its flags stop at the program's name); for contend, put %s before %s; to say that %s is the program's, write -- before the program\n",
		words, prog, oneMany(len(own), "is", "are"), prog, oneMany(len(own), "it", "them"), prog, words)
}

// programCommand returns the command of args that takes a program (exec,
// ab exec) and the index of its first argument, or nil.
func programCommand(app *cli.App, args []string) (*cli.Command, int) {
	if len(args) < 3 {
		return nil, 0
	}
	cmd := app.Command(args[1])
	i := 2
	if cmd != nil && cmd.Name == "ab" && len(args) > 3 && args[2] == "exec" {
		cmd, i = cmd.Command("exec"), 3
	}
	if cmd == nil || !ProgramArgs[commandKey(args[1], cmd)] {
		return nil, 0
	}
	return cmd, i
}

// programStart returns the index of the program's name in args, the
// command's flags skipped from i on; false where the program's start is
// not known: at "--" (the command line says it) or at a word that is not
// a flag of the command (the usage error says so).
func programStart(cmd *cli.Command, args []string, i int) (int, bool) {
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return 0, false
		}
		if !IsFlagWord(a) {
			break
		}
		f := flagOf(cmd, a)
		if f == nil {
			return 0, false
		}
		if TakesValue(f) && !strings.Contains(a, "=") {
			i++
		}
	}
	return i, true
}

// flagOf returns the flag of cmd that word (-n, --out=x) names, or nil.
func flagOf(cmd *cli.Command, word string) cli.Flag {
	name, _, _ := strings.Cut(strings.TrimLeft(word, "-"), "=")
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// commandKey is cmd's key in ProgramArgs: "exec" or "ab exec".
func commandKey(top string, cmd *cli.Command) string {
	if top == cmd.Name {
		return top
	}
	return top + " " + cmd.Name
}

// oneMany is one where n is 1, else many.
func oneMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
