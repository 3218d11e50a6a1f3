package testutil

import (
	"os/exec"
	"sync"
	"testing"
)

var envDefaultSignal = sync.OnceValues(func() (string, bool) {
	env, err := exec.LookPath("env")
	return env, err == nil && exec.Command(env, "--default-signal", "true").Run() == nil
})

// DefaultSignals makes cmd start its program with every signal at its
// default disposition, as a test that sends it a signal needs: a program
// inherits the signals its parent ignores (SIGHUP under nohup, SIGINT and
// SIGQUIT in a script's background job), Go's exec cannot reset them, and
// a shell cannot trap or reset a signal ignored on entry. The program is
// started through coreutils' env --default-signal (8.31 and later); the
// test is skipped without it. Call it after exec.Command, before Start.
func DefaultSignals(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	env, ok := envDefaultSignal()
	if !ok {
		t.Skip("env --default-signal (coreutils 8.31) is missing: cannot start a program with its signals at their default")
	}
	cmd.Args = append([]string{env, "--default-signal", "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = env
}
