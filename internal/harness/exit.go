package harness

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// ExitText says how a process that did not exit with status 0 ended, as
// both runners (RunRep, external.RunRep) report it: "WHO was killed by
// signal SIGKILL (core dumped)" or "WHO exited with status 3".
func ExitText(who string, ws syscall.WaitStatus) string {
	if ws.Signaled() {
		msg := fmt.Sprintf("%s was killed by signal %s", who, unix.SignalName(ws.Signal()))
		if ws.CoreDump() {
			msg += " (core dumped)"
		}
		return msg
	}
	return fmt.Sprintf("%s exited with status %d", who, ws.ExitStatus())
}
