package cliflag

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"contend/internal/value"
	"contend/internal/workload"
)

// TestTypedFlag checks a typed flag on a small app: a good text is the
// typed value, a bad one a usage error naming the flag and the range (and
// Refused finds it), an enum's words are read back by EnumOf.
func TestTypedFlag(t *testing.T) {
	var got int
	e := &value.Enum{W: "ab", Words: []string{"ab", "abba"}}
	app := &cli.App{
		Commands: []*cli.Command{{Name: "c",
			Flags:  []cli.Flag{New("runs", &value.Int{N: 6, Min: 1, Max: 10}, "runs", "n"), Enum("order", e, "order")},
			Action: func(c *cli.Context) error { got = c.Value("runs").(int); return nil }}},
		ExitErrHandler: func(*cli.Context, error) {},
	}
	for _, c := range app.Commands {
		SetUsageErrors(c)
	}
	if err := app.Run([]string{"x", "c", "-n", "4"}); err != nil || got != 4 {
		t.Fatalf("-n 4: %v, got %d", err, got)
	}
	err := app.Run([]string{"x", "c", "--runs", "11"})
	var ue *workload.UsageError
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "--runs: ") {
		t.Errorf("--runs 11: %v, want a usage error naming --runs", err)
	}
	if w := EnumOf(app.Commands[0].Flags[1]); w != e {
		t.Errorf("EnumOf: %v", w)
	}
	if EnumOf(app.Commands[0].Flags[0]) != nil {
		t.Error("EnumOf of an Int flag is not nil")
	}
}

// TestOnUsageError checks the flag package's texts said in contend's
// words.
func TestOnUsageError(t *testing.T) {
	c := cli.NewContext(&cli.App{}, flag.NewFlagSet("x", flag.ContinueOnError), nil)
	for in, want := range map[string]string{
		"flag provided but not defined: -n3":            "unknown flag --n3; see --help",
		"flag needs an argument: -n":                    "-n: needs a value; see --help",
		`invalid boolean value "maybe" for -force: bad`: `--force: "maybe" is not accepted; accepted: true or false (or the flag alone)`,
		"something else":                                "something else",
	} {
		if got := OnUsageError(c, errors.New(in), false); got.Error() != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
