package ab

import (
	"strings"

	"contend/internal/external"
	"contend/internal/workload"
)

// ExecSide is what one side of ab exec runs.
type ExecSide struct {
	Args []string // as given: words, or with --shell the script as one word
	Argv []string // what runs
}

// ExecOptions are ab exec's sides as given: the commands of --a and --b
// (A, B; ASet, BSet when given), the program after -- (Args), --shell
// and --aa.
type ExecOptions struct {
	A, B       string
	ASet, BSet bool
	Args       []string
	Shell, AA  bool
}

// ExecSides returns the sides' commands: --a and --b, or the program
// after -- for both. Every program is checked (external.CheckProgram)
// before anything runs.
func ExecSides(o ExecOptions) ([2]ExecSide, error) {
	var sides [2]ExecSide
	if err := execSidesGiven(o); err != nil {
		return sides, err
	}
	if len(o.Args) > 0 {
		s := ExecSide{Args: o.Args, Argv: o.Args}
		if o.Shell {
			s.Argv = external.ShellArgv(o.Args)
		} else if err := external.CheckProgram("ab exec", o.Args[0]); err != nil {
			return sides, err
		}
		return [2]ExecSide{s, s}, nil
	}
	texts := [2]string{o.A, o.B}
	for i, side := range []string{"a", "b"} {
		if o.AA {
			side, texts[i] = "a", o.A
		}
		var err error
		if sides[i], err = execSide(side, texts[i], o.Shell); err != nil {
			return sides, err
		}
	}
	return sides, nil
}

// execSidesGiven refuses sides given both ways, or neither, or half.
func execSidesGiven(o ExecOptions) error {
	args := len(o.Args) > 0
	switch {
	case args && (o.ASet || o.BSet):
		return workload.Usagef("ab exec: give the sides' commands with --a and --b, or one program after -- for both sides, not both")
	case !args && !o.ASet && !o.BSet:
		return workload.Usagef("ab exec: which programs? usage: contend ab exec [flags] --a 'COMMAND A' --b 'COMMAND B', or [flags] -- PROGRAM [ARGS]")
	case !args && !o.ASet:
		return workload.Usagef("ab exec: --a is missing: give both --a and --b, or one program after -- for both sides")
	case !args && !o.BSet && !o.AA:
		return workload.Usagef("ab exec: --b is missing: give both --a and --b (or --aa to run --a on both sides)")
	}
	return nil
}

// execSide reads the command of one side (--a or --b, the flag side):
// with shell a script, else words of which the first is checked as a
// program.
func execSide(side, text string, shell bool) (ExecSide, error) {
	if strings.TrimSpace(text) == "" {
		return ExecSide{}, workload.Usagef("--%s: empty; give a command such as './prog-old'", side)
	}
	if shell {
		return ExecSide{Args: []string{text}, Argv: external.ShellArgv([]string{text})}, nil
	}
	words, err := external.SplitWords(text)
	if err != nil {
		return ExecSide{}, workload.Usagef("--%s: %v", side, err)
	}
	if len(words) == 0 || words[0] == "" { // '' is no program
		return ExecSide{}, workload.Usagef("--%s: empty; give a command such as './prog-old'", side)
	}
	if err := external.CheckProgram("--"+side, words[0]); err != nil {
		return ExecSide{}, err
	}
	return ExecSide{Args: words, Argv: words}, nil
}

// ExecName is the workload name of an ab exec file: exec:PROGRAM when
// both sides run the same program (or exec:sh with shell), else
// exec:A-vs-B of the programs' base names.
func ExecName(sides [2]ExecSide, shell bool) string {
	a, b := external.Name(sides[0].Args[0], shell), external.Name(sides[1].Args[0], shell)
	if a == b {
		return a
	}
	return a + "-vs-" + strings.TrimPrefix(b, "exec:")
}
