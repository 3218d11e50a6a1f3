// Package earlysig catches SIGINT and SIGTERM from the start of a contend
// process, before the command line is even parsed: without a handler the
// first ~1-50 ms (package initialisation, urfave/cli, gonum) a signal
// kills contend the default way (exit 143, no result file, no message).
//
// Its init runs as early as Go allows: it imports only os, os/signal and
// syscall, so it is initialised right after them, before the larger
// packages contend imports (the runtime initialises ready packages in
// import-path order, and "contend/..." sorts before most). What remains
// is the time from exec to that init: the dynamic loader, the Go runtime's
// start and the initialisation of os and os/signal, well under a
// millisecond. A signal there still ends contend by the signal; nothing
// has been created then.
//
// The repetition child (os.Args[1] == ChildArg) is left alone: it keeps
// the default dispositions, so that the parent's and the user's signals
// end it at once.
package earlysig

import (
	"os"
	"os/signal"
	"syscall"
)

// ChildArg is harness.ChildArg (a test checks that they agree); harness
// is not imported, so that this package initialises first.
const ChildArg = "__child"

// C receives the SIGINT and SIGTERM that arrive from process start on
// (buffered, nil in the repetition child). Main cancels its context on
// the first one, as on a later signal.
var C chan os.Signal

func init() {
	if len(os.Args) > 1 && os.Args[1] == ChildArg {
		return
	}
	C = make(chan os.Signal, 1)
	signal.Notify(C, os.Interrupt, syscall.SIGTERM)
}
