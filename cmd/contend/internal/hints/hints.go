// Package hints adds to a usage error's message what the command line
// shows about a newcomer's mistake: the flag as it was typed (-n3, not
// --n3), the word meant ("did you mean"), quotes for the flags of an ab
// side, the sides of one ab file for compare.
package hints

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliargs"
	"contend/cmd/contend/internal/suggest"
	"contend/internal/external"
	"contend/internal/lazyre"
	"contend/internal/results"
	"contend/internal/workload"
)

var (
	unknownFlagRE = lazyre.New(`^unknown flag -{1,2}([^ ;]+); see --help$`)
	noCommandRE   = lazyre.New(`^no command "([^"]+)"`)
	noWorkloadRE  = lazyre.New(`no workload "([^"]+)"`)
	helpTopicRE   = lazyre.New(`^help: no command or workload "([^"]+)"`)
	sideParamRE   = lazyre.New(`^--(a|b): (\S+) has no parameter --(\S+); `)
	positionalRE  = lazyre.New(`takes no positional arguments \(got "([^"]*)"\)`)
	compareOneRE  = lazyre.New(`^compare needs a baseline and at least one other result file, got 1 `)
)

// Hint returns msg, the message of a usage error of the command line
// args of app, with its hint; topics are the help topics besides the
// commands and the workloads. A message with no hint is returned as it is.
func Hint(app *cli.App, args []string, msg string, topics []string) string {
	cmds := commandPath(app, args)
	if m := unknownFlagRE().FindStringSubmatch(msg); m != nil {
		return unknownFlagHint(cmds, args, m[1])
	}
	if m := noCommandRE().FindStringSubmatch(msg); m != nil {
		return noCommandHint(app, cmds, m[1], msg)
	}
	if m := helpTopicRE().FindStringSubmatchIndex(msg); m != nil {
		words := append(append(cliargs.VisibleNames(app.Commands), workload.Names()...), topics...)
		return didYouMean(msg, m, words)
	}
	if m := noWorkloadRE().FindStringSubmatchIndex(msg); m != nil {
		return didYouMean(msg, m, workload.Names())
	}
	if m := sideParamRE().FindStringSubmatch(msg); m != nil {
		return sideParamHint(cmds, args, m[1], m[2], m[3], msg)
	}
	if m := positionalRE().FindStringSubmatch(msg); m != nil {
		return appendHint(msg, quoteSideHint(args, m[1]))
	}
	if compareOneRE().MatchString(msg) {
		return appendHint(msg, compareOneHint(args))
	}
	return msg
}

// appendHint returns msg; h, or msg where there is no hint h.
func appendHint(msg, h string) string {
	if h == "" {
		return msg
	}
	return msg + "; " + h
}

// didYouMean puts "(did you mean W?)" after the match m of msg, whose
// first group is the name typed, where W of words is near it.
func didYouMean(msg string, m []int, words []string) string {
	if s, ok := suggest.Closest(msg[m[2]:m[3]], words); ok {
		return msg[:m[1]] + fmt.Sprintf(" (did you mean %s?)", s) + msg[m[1]:]
	}
	return msg
}

// noCommandHint says the command or subcommand meant by name.
func noCommandHint(app *cli.App, cmds []*cli.Command, name, msg string) string {
	if len(cmds) > 0 && len(cmds[len(cmds)-1].Subcommands) > 0 {
		// contend campaign int: a subcommand of campaign.
		parent := commandWords(cmds)
		subs := cliargs.VisibleNames(cmds[len(cmds)-1].Subcommands)
		if s, ok := suggest.Closest(name, subs); ok {
			return fmt.Sprintf("%s has no subcommand %q; did you mean %s? (see 'contend %s --help')", parent, name, s, parent)
		}
		return fmt.Sprintf("%s has no subcommand %q; one of: %s (see 'contend %s --help')", parent, name, strings.Join(subs, ", "), parent)
	}
	if s, ok := suggest.Closest(name, cliargs.VisibleNames(app.Commands)); ok {
		return fmt.Sprintf("no command %q; did you mean %s? (see 'contend --help')", name, s)
	}
	return msg
}

// commandPath returns the commands args names, outermost first: contend
// run faultme is [run, run faultme].
func commandPath(app *cli.App, args []string) []*cli.Command {
	var path []*cli.Command
	cs := app.Commands
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		var next *cli.Command
		for _, c := range cs {
			if c.HasName(a) {
				next = c
				break
			}
		}
		if next == nil {
			break
		}
		path = append(path, next)
		cs = next.Subcommands
	}
	return path
}

// flagNamesOf returns every name of the flags of the innermost command
// of path, and of the app's own flags when path is empty.
func flagNamesOf(path []*cli.Command) []string {
	if len(path) == 0 {
		return []string{"help", "h", "version", "v"}
	}
	var out []string
	for _, f := range path[len(path)-1].Flags {
		out = append(out, f.Names()...)
	}
	return out
}

// typedFlag returns the word of args that named flag name (without its
// =value), as it was typed: "-n3" for name n3.
func typedFlag(args []string, name string) string {
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		word, _, _ := strings.Cut(a, "=")
		if strings.TrimLeft(word, "-") == name {
			return word
		}
	}
	return Dashed(name)
}

// unknownFlagHint says an unknown flag as it was typed: a one-letter flag
// glued to its value (-n3: -n 3), or the flag meant.
func unknownFlagHint(path []*cli.Command, args []string, name string) string {
	typed := typedFlag(args, name)
	names := flagNamesOf(path)
	where := "see --help"
	if len(path) > 0 {
		where = "see 'contend " + commandWords(path) + " --help'"
	}
	if !strings.HasPrefix(typed, "--") && len(name) > 1 {
		for _, n := range names {
			if len(n) == 1 && n == name[:1] {
				return fmt.Sprintf("unknown flag %s; did you mean -%s %s? (a flag's value goes after a space or =); %s", typed, n, name[1:], where)
			}
		}
	}
	if s, ok := suggest.Closest(name, names); ok {
		return fmt.Sprintf("unknown flag %s; did you mean %s? (%s)", typed, Dashed(s), where)
	}
	return fmt.Sprintf("unknown flag %s; %s", typed, where)
}

// commandWords is path as typed: "run faultme".
func commandWords(path []*cli.Command) string {
	var w []string
	for _, c := range path {
		w = append(w, c.Name)
	}
	return strings.Join(w, " ")
}

// sideValue returns the text of ab's --a or --b in args.
func sideValue(args []string, side string) (string, bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--"+side || a == "-"+side {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		}
		if v, ok := strings.CutPrefix(a, "--"+side+"="); ok {
			return v, true
		}
	}
	return "", false
}

// sideParamHint says a flag of --a or --b that the workload does not have
// as it was typed, and either that it is ab's own flag (to be given
// outside the quotes) or the parameter meant.
func sideParamHint(path []*cli.Command, args []string, side, wl, name, msg string) string {
	typed, given, others := Dashed(name), Dashed(name)+" ...", "..."
	if v, ok := sideValue(args, side); ok {
		if words, err := external.SplitWords(v); err == nil {
			for i, w := range words {
				word, _, hasVal := strings.Cut(w, "=")
				if strings.TrimLeft(word, "-") != name || !strings.HasPrefix(word, "-") {
					continue
				}
				typed, given = word, w
				rest := words[i+1:]
				if !hasVal && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
					given += " " + rest[0]
					rest = rest[1:]
				}
				if o := strings.Join(append(append([]string{}, words[:i]...), rest...), " "); o != "" {
					others = o
				}
				break
			}
		}
	}
	_, rest, _ := strings.Cut(msg, "; ")
	head := fmt.Sprintf("--%s: %s has no parameter %s", side, wl, typed)
	for _, n := range flagNamesOf(path) {
		if n == name {
			return fmt.Sprintf("%s; %s is a flag of ab itself, for both sides: give it outside --%s, such as: contend ab %s %s --%s '%s'", head, typed, side, wl, given, side, others)
		}
	}
	if w, ok := workload.Lookup(wl); ok {
		var params []string
		for _, p := range w.Params {
			params = append(params, p.Name)
		}
		if s, ok := suggest.Closest(name, params); ok {
			return fmt.Sprintf("%s; did you mean --%s? (%s)", head, s, rest)
		}
	}
	return head + "; " + rest
}

// quoteSideHint suggests quotes when an ab side's flags were given
// without them: in 'ab faultme --a --threads 4', --a took "--threads" and
// 4 was left over. got is the positional arguments the error names.
func quoteSideHint(args []string, got string) string {
	for _, side := range []string{"a", "b"} {
		v, ok := sideValue(args, side)
		if !ok || !strings.HasPrefix(v, "-") || strings.Contains(v, " ") {
			continue
		}
		want := v
		if got != "" {
			want += " " + strings.Fields(got)[0]
		}
		return fmt.Sprintf("--%s takes the side's flags as one quoted argument: --%s '%s'", side, side, want)
	}
	return ""
}

// compareOneHint suggests the sides of one ab (or sweep) file to compare
// when it is the only file given.
func compareOneHint(args []string) string {
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") || a == "compare" {
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		f, err := results.Read(a)
		if err != nil || len(f.Configs) < 2 {
			continue
		}
		n1, n2 := f.Configs[0].Name, f.Configs[1].Name
		if n1 == "" || n2 == "" || strings.Contains(n1, " ") || strings.Contains(n2, " ") {
			continue
		}
		if f.Kind == "ab" {
			return fmt.Sprintf("%s is an ab file: compare its sides with 'contend compare %s:%s %s:%s'", a, a, n1, a, n2)
		}
		return fmt.Sprintf("%s holds %d configurations: compare two of them with 'contend compare %s:%s %s:%s'", a, len(f.Configs), a, n1, a, n2)
	}
	return ""
}

// Dashed writes a flag name as it is typed: -n for a one-letter name,
// --name otherwise (the flag package writes every name with one dash).
func Dashed(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
