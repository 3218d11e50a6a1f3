package bind

import (
	"strings"
	"syscall"
	"testing"
)

// TestErrorDeadWorkerReadsCleanly: a worker killed by a signal is no failed
// call; its message carries no "failed: ECHILD" suffix, while a failed call
// still names its errno.
func TestErrorDeadWorkerReadsCleanly(t *testing.T) {
	e := &Error{Workload: "osim", Call: "worker", Errno: syscall.ECHILD, Detail: "2 of 4 (pid 77) was killed by signal SIGKILL"}
	if got, want := e.Error(), "osim: worker 2 of 4 (pid 77) was killed by signal SIGKILL"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &Error{Workload: "osim", Call: "semop", Errno: syscall.EINVAL, Detail: "in worker 1 of 4"}
	if got := e.Error(); !strings.HasSuffix(got, "semop in worker 1 of 4 failed: EINVAL (invalid argument)") {
		t.Errorf("failed call: %q", got)
	}
}
