package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/bind"
	"contend/internal/env"
)

// captureEnv is env.Capture with the facts only the C side knows (the
// compiler that built native/ and its effective flags): env links no cgo,
// this binary does. Tests replace it.
var captureEnv = func() env.Fingerprint {
	return env.Capture(env.Fingerprint{"cc.version": bind.CCVersion(), "cc.flags": bind.CCFlags()})
}

func envCommand() *cli.Command {
	return &cli.Command{
		Name:        "env",
		Usage:       "print this machine's environment fingerprint",
		Description: helpText("env"),
		Flags: []cli.Flag{
			formatFlag("text or json", "text", "json"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("env takes no arguments (got %q); see 'contend help env'", strings.Join(c.Args().Slice(), " "))
			}
			f := captureEnv()
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, f)
			}
			for _, k := range f.Keys() {
				if v := f[k]; len(v) > 59 && !strings.ContainsAny(v, " ,") {
					// One word too long for the column (a hash): on a
					// line of its own, whole.
					fmt.Fprintf(c.App.Writer, "%s\n    %s\n", k, v)
					continue
				}
				fmt.Fprintf(c.App.Writer, "%-19s %s\n", k, wrap(f[k], 59, strings.Repeat(" ", 20)))
			}
			return nil
		},
	}
}
