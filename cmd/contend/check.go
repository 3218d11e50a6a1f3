package main

import (
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/lock"
	"contend/internal/tune"
	"contend/internal/value"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:        "check",
		Usage:       "is this machine ready for a benchmark? tune state, load, isolated CPUs, SMT, frequency, throttling",
		ArgsUsage:   " ",
		Description: helpText("check"),
		Flags: []cli.Flag{
			newFlag("interval", &value.Duration{D: 500 * time.Millisecond, Min: 10 * time.Millisecond, Max: time.Minute}, "how long to watch the processes' CPU use, from 10ms to 1m"),
			&cli.StringFlag{Name: "cpus", Usage: "benchmark CPUs, as for 'contend tune'"},
		},
		Action: checkAction,
	}
}

func checkAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usagef("check takes no arguments (got %q); see 'contend help check'", strings.Join(c.Args().Slice(), " "))
	}
	iv := c.Value("interval").(time.Duration)
	root := tune.Root()
	opt, err := tuneOptions(c, root)
	if err != nil {
		return err
	}
	r := tune.CheckMachine(root, opt, iv)
	holder := ""
	if h, held := lock.Current(lock.Path()); held {
		holder = h.String()
	}
	writeWrapped(c.App.Writer, func(w io.Writer) { tune.WriteCheck(w, r, iv, holder) })
	return nil
}
