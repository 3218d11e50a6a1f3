package main

import (
	"errors"
	"fmt"
	"iter"
	"strings"

	"contend/internal/results"
	"contend/internal/run"
)

// Creating and finishing the result file of a command that runs
// repetitions: run, ab, sweep, exec, import, verify.

// openOut creates the result file given by --out (out), or
// results/NAME-DATE-TIME.jsonl when out is empty (run.Open), whose
// repetitions after f.Reps are yielded by reps; a refusal, or a path that
// cannot be written, is a usage error naming --out.
func openOut(out, name string, f *results.File, mode results.Mode, reps iter.Seq[*results.Rep]) (*results.Writer, error) {
	wr, err := run.Open(out, name, f, mode, reps)
	if err != nil {
		return nil, usagef("--out: %v", errors.Unwrap(err))
	}
	return wr, nil
}

// repList names repetitions by their 1-based numbers: "repetition 27",
// "repetitions 27-30".
func repList(idx []int) string {
	if len(idx) == 1 {
		return fmt.Sprintf("repetition %d", idx[0]+1)
	}
	return fmt.Sprintf("repetitions %d-%d", idx[0]+1, idx[len(idx)-1]+1)
}

// aKind is a result file's kind with its article: "a run", "an import",
// "an exec".
func aKind(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
