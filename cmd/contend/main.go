// Command contend runs the Linux kernel mailing list's contention
// micro-benchmarks (faultme, semop-multi, osim, the pthread mutex test)
// faithfully, repeats them in fresh processes, records every run with its
// environment, and compares runs with statistics. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"

	"contend/internal/earlysig"
	"contend/internal/harness"
)

func main() {
	// The repetition child: one cgo call, before the CLI is even built.
	// It keeps the default signal dispositions (earlysig skips it).
	if len(os.Args) > 1 && os.Args[1] == harness.ChildArg {
		os.Exit(harness.ChildMain(os.Args[2:]))
	}
	os.Exit(Main(os.Args, os.Stdout, os.Stderr))
}

// takeEarlySignal hands over from the handler installed at process start
// (earlysig) to Main's, which is installed when this is called: a SIGINT
// or SIGTERM that came in between returns ctx cancelled, as if it had come
// later, so that a run stops cleanly (exit 130) instead of dying by the
// signal.
func takeEarlySignal(ctx context.Context) context.Context {
	c := earlysig.C
	if c == nil {
		return ctx
	}
	earlysig.C = nil
	signal.Stop(c)
	select {
	case <-c:
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return ctx
	default:
		return ctx
	}
}
