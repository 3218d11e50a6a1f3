package main

import (
	"errors"
	"fmt"
	"os/exec"

	"github.com/urfave/cli/v2"
)

// runPlotHelper runs the contend-plot helper (helperPath) with args, its
// output on contend's; what names the command in an error. A helper that
// exits non-zero has said why: contend exits with its status.
func runPlotHelper(c *cli.Context, what string, args ...string) error {
	helper, err := helperPath()
	if err != nil {
		return err
	}
	cmd := exec.Command(helper, args...)
	cmd.Stdout, cmd.Stderr = c.App.Writer, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return cli.Exit("", ee.ExitCode())
		}
		return fmt.Errorf("%s: running %s: %v", what, helper, err)
	}
	return nil
}
