package fleet

import (
	"errors"
	"fmt"
	"io"

	"contend/internal/comparison"
)

// Request is 'contend compare --by BY': the files of A and B (or Args,
// files and directories of a fleet, when neither is given), the status
// file Hosts ("": none, or fleet-status.txt of a directory given).
type Request struct {
	By, Hosts string
	A, B      []string
	Args      []string
	Options   comparison.Options
	Warn      io.Writer // the files skipped while reading
}

// InputError is a refused input of a Request: the command's usage error.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// IsInput tells whether err is a refused input of the fleet's report: an
// InputError, or files that cannot be compared (comparison.ErrIncompatible).
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie) || errors.Is(err, comparison.ErrIncompatible)
}

func refuse(err error) error { return &InputError{err.Error()} }

// CheckRequest checks --by and the --format it accepts (text or json).
func CheckRequest(by, format string) error {
	if err := CheckBy(by); err != nil {
		return refuse(err)
	}
	if format != "text" && format != "json" {
		return &InputError{fmt.Sprintf("--format: %q is not accepted with --by; accepted: text, json", format)}
	}
	return nil
}

// Compare reads the files of r, groups them by r.By and compares B with
// A within each group (Build), the hosts of the status file named even
// without results.
func Compare(r Request) (*Report, error) {
	fs := &Files{Status: r.Hosts, Warn: r.Warn}
	var err error
	switch {
	case len(r.A) > 0:
		if err = fs.Add(r.A, 'A'); err == nil {
			err = fs.Add(r.B, 'B')
		}
	case len(r.Args) == 0:
		return nil, &InputError{fmt.Sprintf("compare --by %s: which result files? give files or a results directory (results/HOST/...)", r.By)}
	default:
		err = fs.Add(r.Args, 0)
	}
	if err != nil {
		return nil, refuse(err)
	}
	var expected []Host
	if fs.Status != "" {
		if expected, err = ReadStatus(fs.Status); err != nil {
			return nil, &InputError{"--hosts: " + err.Error()}
		}
	}
	groups, err := Groups(fs.Items, r.By)
	if err != nil {
		return nil, refuse(err)
	}
	return Build(r.By, groups, expected, r.Options)
}
