package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"contend/internal/harness"
)

func init() { addCommand(cleanupCommand) }

func cleanupCommand() *cli.Command {
	return &cli.Command{
		Name:  "cleanup",
		Usage: "remove SysV semaphore sets left by contend runs that were killed",
		Description: `contend removes every semaphore set a repetition made, however the
repetition ends, as long as contend itself is alive: Ctrl-C, SIGTERM, a
timeout or a crash of the child are all cleaned up. Only SIGKILL of contend
itself can leave a set behind. Such a set has a key of the form 0x63PPPPPP,
where PPPPPP is the pid of the repetition child that made it; cleanup removes
those whose child no longer exists. Runs warn when there are any.

Examples:
   contend cleanup --dry-run     list them
   contend cleanup               remove them`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "list the sets, remove nothing"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("cleanup takes no arguments")
			}
			sets, err := harness.StaleSets()
			if err != nil {
				return fmt.Errorf("cannot read the semaphore sets: %v", err)
			}
			w := c.App.Writer
			if len(sets) == 0 {
				fmt.Fprintln(w, "no semaphore set left by contend")
				return nil
			}
			if c.Bool("dry-run") {
				for _, s := range sets {
					fmt.Fprintf(w, "semaphore set %d (key 0x%08x, made by pid %d, gone)\n", s.ID, s.Key, s.PID)
				}
				return nil
			}
			done, err := harness.RemoveStale(sets)
			for _, s := range done {
				fmt.Fprintf(w, "removed semaphore set %d (key 0x%08x, made by pid %d)\n", s.ID, s.Key, s.PID)
			}
			return err
		},
	}
}

// staleWarning returns a warning about sets left by killed runs, or "".
func staleWarning() string {
	sets, err := harness.StaleSets()
	if err != nil || len(sets) == 0 {
		return ""
	}
	return fmt.Sprintf("%d SysV semaphore set(s) were left by contend runs that were killed with SIGKILL; 'contend cleanup' removes them", len(sets))
}
