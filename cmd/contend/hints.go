package main

import (
	"errors"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/hints"
	"contend/internal/workload"
)

// withHints returns err with what the command line args shows about a
// newcomer's usage error: the flag as it was typed (-n3, not --n3), the
// word meant ("did you mean"), quotes for the flags of an ab side, the
// sides of one ab file for compare. Other errors are returned as they are.
func withHints(app *cli.App, args []string, err error) error {
	var ue *usageError
	var we *workload.UsageError
	var msg string
	switch {
	case errors.As(err, &ue):
		msg = ue.msg
	case errors.As(err, &we):
		msg = we.Msg
	default:
		return err
	}
	hinted := hints.Hint(app, args, msg, slices.Sorted(maps.Keys(helpTopics)))
	if hinted == msg {
		return err
	}
	return &usageError{hinted}
}
