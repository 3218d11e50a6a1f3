package harness

import (
	"syscall"
	"testing"
)

func TestExitText(t *testing.T) {
	for _, c := range []struct {
		ws   syscall.WaitStatus
		want string
	}{
		{syscall.WaitStatus(9), "prog was killed by signal SIGKILL"},
		{syscall.WaitStatus(11 | 0x80), "prog was killed by signal SIGSEGV (core dumped)"},
		{syscall.WaitStatus(3 << 8), "prog exited with status 3"},
	} {
		if got := ExitText("prog", c.ws); got != c.want {
			t.Errorf("ExitText(%#x) = %q, want %q", uint32(c.ws), got, c.want)
		}
	}
}
