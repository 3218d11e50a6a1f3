package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"contend/internal/cleanup"
	"contend/internal/ipcown"
)

func cleanupCommand() *cli.Command {
	return &cli.Command{
		Name:        "cleanup",
		Usage:       "remove SysV semaphore sets, restore tracefs settings and remove temporary directories left by contend runs that were killed",
		Description: helpText("cleanup"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "list the sets, remove nothing"},
			&cli.StringFlag{Name: "binary", Usage: "only what runs of this contend executable left (a path)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("cleanup takes no arguments")
			}
			only := ""
			if c.IsSet("binary") {
				b := c.String("binary")
				if st, err := os.Stat(b); b == "" || err != nil || !st.Mode().IsRegular() {
					return usagef("--binary: %q is not an executable file: give the path of a contend binary", b)
				}
				only = ipcown.SameFile(b)
			}
			return cleanup.Run(c.App.Writer, cleanup.Options{DryRun: c.Bool("dry-run"), Only: only})
		},
	}
}
