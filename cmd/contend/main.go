// Command contend runs the Linux kernel mailing list's contention
// micro-benchmarks (faultme, semop-multi, osim, the pthread mutex test)
// faithfully, repeats them in fresh processes, records every run with its
// environment, and compares runs with statistics. See README.md.
package main

import (
	"os"

	"contend/internal/harness"
)

func main() {
	// The repetition child: one cgo call, before the CLI is even built.
	if len(os.Args) > 1 && os.Args[1] == harness.ChildArg {
		os.Exit(harness.ChildMain(os.Args[2:]))
	}
	os.Exit(Main(os.Args, os.Stdout, os.Stderr))
}
