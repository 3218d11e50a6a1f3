package main

import (
	"errors"
	"iter"

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

// aKind is a result file's kind with its article (results.AKind).
func aKind(kind string) string { return results.AKind(kind) }
