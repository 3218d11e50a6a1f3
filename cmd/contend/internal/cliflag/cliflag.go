// Package cliflag gives urfave/cli flags typed values (internal/value:
// Int, Percent, Level, Duration, Enum, ...), each checked as the flag is
// read and refused with one line naming the flag and the accepted range,
// and turns the flag package's other errors into such lines
// (OnUsageError).
package cliflag

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/hints"
	"contend/internal/value"
	"contend/internal/workload"
)

// Flag is a flag whose value is one of internal/value's typed values
// (value.Int, value.Percent, value.Level, value.Duration, ...), made with
// New: urfave/cli's GenericFlag, which hands the flag package the
// value itself, so that Set parses and checks the text as the flag is
// read, and c.Value(NAME) is the typed result. A bad text stops the parse
// with Set's error; OnUsageError finds it in the flag (Refused),
// already naming the flag and the accepted range.
type Flag struct{ cli.GenericFlag }

// TakesValue is false for a boolean value (value.BoolText), which the
// flag package takes alone (--pin): help and reorder read it.
func (f *Flag) TakesValue() bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// String is the flag's line in help, written with TakesValue above.
func (f *Flag) String() string { return cli.FlagStringer(f) }

// New declares the flag name (with aliases) holding v, preset to its
// default.
func New(name string, v cli.Generic, usage string, aliases ...string) *Flag {
	return &Flag{cli.GenericFlag{Name: name, Aliases: aliases, Value: Named(name, v), Usage: usage}}
}

// Enum declares the flag name (with aliases) holding e, one word of
// a fixed set: help shows its default quoted, as a string flag's, and
// completion offers e's words (EnumOf).
func Enum(name string, e *value.Enum, usage string, aliases ...string) *Flag {
	f := New(name, e, usage, aliases...)
	if e.W != "" {
		f.DefaultText = strconv.Quote(e.W)
	}
	return f
}

// EnumOf returns the value.Enum that flag f holds, or nil when f is not
// an Enum flag.
func EnumOf(f cli.Flag) *value.Enum {
	if vf, ok := f.(*Flag); ok {
		if fv, ok := vf.Value.(*flagValue); ok {
			e, _ := fv.v.(*value.Enum)
			return e
		}
	}
	return nil
}

// Choices returns the words completion offers for f: its enum's
// (EnumOf), or none.
func Choices(f cli.Flag) []string {
	if e := EnumOf(f); e != nil {
		return e.Choices()
	}
	return nil
}

// flagValue is the flag package's view of a typed value: it forwards to
// v and keeps the error of a refused text, named by the flag.
type flagValue struct {
	name string
	v    cli.Generic
	err  error
}

// Named returns v as the flag package sees the flag called name.
func Named(name string, v cli.Generic) cli.Generic { return &flagValue{name: name, v: v} }

// Set parses s with v; a refused text's error names the flag.
func (f *flagValue) Set(s string) error {
	if err := f.v.Set(s); err != nil {
		f.err = workload.Usagef("--%s: %v", f.name, err)
		return f.err
	}
	return nil
}

// String is v's text (the default, in help).
func (f *flagValue) String() string {
	if f == nil || f.v == nil {
		return ""
	}
	return f.v.String()
}

// Get returns the typed value (flag.Getter, read by c.Value).
func (f *flagValue) Get() any {
	if g, ok := f.v.(interface{ Get() any }); ok {
		return g.Get()
	}
	return f.v.String()
}

// IsBoolFlag tells the flag package whether v takes no argument.
func (f *flagValue) IsBoolFlag() bool {
	b, ok := f.v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Refused returns the error of a typed flag of c's command whose
// text was refused, or nil.
func Refused(c *cli.Context) error {
	if c == nil || c.Command == nil {
		return nil
	}
	for _, f := range c.Command.Flags {
		if vf, ok := f.(*Flag); ok {
			if fv, ok := vf.Value.(*flagValue); ok && fv.err != nil {
				return fv.err
			}
		}
	}
	return nil
}

// SetUsage replaces the usage text of the flag called name in flags.
func SetUsage(flags []cli.Flag, name, usage string) {
	for _, f := range flags {
		if f.Names()[0] != name {
			continue
		}
		switch f := f.(type) {
		case *cli.StringFlag:
			f.Usage = usage
		case *cli.BoolFlag:
			f.Usage = usage
		case *Flag:
			f.Usage = usage
		}
	}
}

// WithCategory puts f under the heading cat in help.
func WithCategory(f *Flag, cat string) *Flag {
	f.Category = cat
	return f
}

// SetUsageErrors gives c and its subcommands OnUsageError (urfave/cli
// takes a command's own OnUsageError only, none from the App).
func SetUsageErrors(c *cli.Command) {
	c.OnUsageError = OnUsageError
	for _, s := range c.Subcommands {
		SetUsageErrors(s)
	}
}

// OnUsageError turns urfave/cli's flag errors into one-line usage errors.
// A typed flag's refused value (Flag) comes with its own error, naming
// the flag and the accepted range. Otherwise the error is one of the flag
// package's texts, which carry no type: an unknown flag and a flag
// without its value are said in contend's words (urfave/cli reads the
// first one's text too, in parseIter), anything else as it is.
func OnUsageError(c *cli.Context, err error, _ bool) error {
	if ve := Refused(c); ve != nil {
		return ve
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return workload.Usagef("unknown flag %s; see --help", hints.Dashed(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return workload.Usagef("%s: needs a value; see --help", hints.Dashed(name))
	}
	// The flag package's: invalid boolean value "maybe" for -force: parse error.
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		if i := strings.LastIndex(rest, " for -"); i >= 0 {
			name, _, _ := strings.Cut(rest[i+len(" for -"):], ":")
			return workload.Usagef("--%s: %s is not accepted; accepted: true or false (or the flag alone)", name, rest[:i])
		}
	}
	return workload.Usagef("%s", msg)
}
