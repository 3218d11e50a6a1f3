package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliargs"
)

// warnProgramFlags prints cliargs.ProgramFlagsWarning on stderr: the
// words after exec's (or ab exec's) program that are contend's own flags.
func warnProgramFlags(app *cli.App, args []string, stderr io.Writer) {
	fmt.Fprint(stderr, cliargs.ProgramFlagsWarning(app, args))
}
