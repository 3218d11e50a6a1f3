package ab

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// MaxOutput bounds what is kept of a prepare command's output.
const MaxOutput = 4096

// Prepare runs a shell command before a repetition (or at the end, for
// cleanup) and returns its combined output (bounded) and an error that
// says how it failed.
func Prepare(ctx context.Context, what, command string, timeout time.Duration) (string, error) {
	if command == "" {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	text := string(out)
	if len(text) > MaxOutput {
		text = text[:MaxOutput] + "\n[... cut]"
	}
	if err != nil {
		last := strings.TrimSpace(text)
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		why := err.Error()
		if ctx.Err() == context.DeadlineExceeded {
			why = fmt.Sprintf("timed out after %s", timeout)
		}
		if last != "" {
			why += ": " + last
		}
		return text, fmt.Errorf("%s command %q failed (%s)", what, command, why)
	}
	return text, nil
}
