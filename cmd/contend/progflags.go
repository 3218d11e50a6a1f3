package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// warnProgramFlags warns, before exec or ab exec runs, about the words
// after the program that are contend's own flags: without "--", contend's
// flags stop at the program's name (programArgs) and 'contend exec ./prog
// --no-lock' passes --no-lock to ./prog. With "--" the command line says
// where the program starts, and nothing is said.
func warnProgramFlags(app *cli.App, args []string, stderr io.Writer) {
	if len(args) < 3 {
		return
	}
	cmd := app.Command(args[1])
	i := 2
	if cmd != nil && cmd.Name == "ab" && len(args) > 3 && args[2] == "exec" {
		cmd, i = cmd.Command("exec"), 3
	}
	if cmd == nil || !programArgs[commandKey(args[1], cmd)] {
		return
	}
	flagOf := func(word string) cli.Flag {
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
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return
		}
		if !isFlagWord(a) {
			break
		}
		f := flagOf(a)
		if f == nil {
			// Not a flag of the command: the usage error says so, and
			// where the program starts is not known.
			return
		}
		if takesValue(f) && !strings.Contains(a, "=") {
			i++
		}
	}
	if i >= len(args) {
		return
	}
	prog := args[i]
	var own []string
	for _, a := range args[i+1:] {
		if isFlagWord(a) && flagOf(a) != nil {
			w, _, _ := strings.Cut(a, "=")
			own = append(own, w)
		}
	}
	if len(own) == 0 {
		return
	}
	words := strings.Join(own, " ")
	fmt.Fprintf(stderr, "warning: %s after the program %s %s passed to %s, not read by contend (its flags stop at the program's name); for contend, put %s before %s; to say that %s is the program's, write -- before the program\n",
		words, prog, isAre(len(own)), prog, itThem(len(own)), prog, words)
}

// commandKey is cmd's key in programArgs: "exec" or "ab exec".
func commandKey(top string, cmd *cli.Command) string {
	if top == cmd.Name {
		return top
	}
	return top + " " + cmd.Name
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
