package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBisectEarlyInterrupt: a bisect interrupted before the search began
// (here a SIGTERM before Main, as a Ctrl-C at once) says it was
// interrupted and exits 130: not that --repo is not a git repository
// (its git commands were killed by the interruption), exit 2.
func TestBisectEarlyInterrupt(t *testing.T) {
	repo := bisectRepo(t, 4, 2, 1000, 0)
	dir := filepath.Join(t.TempDir(), "search")
	cmd := contendCmd(t, "bisect", "--repo", repo, "--good", "HEAD~3", "--bad", "HEAD", "--build", "gcc -O1 -o prog prog.c", "--dir", dir, "-q",
		"--", "exec", "--metric", `iterations=iterations: (\d+)`, "--", "./prog")
	cmd.Env = append(cmd.Env, "CONTEND_TEST_EARLY_SIGNAL=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Run()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() || ws.ExitStatus() != 130 || !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stderr.String(), "--repo") {
		t.Errorf("status %v, stderr %q; want exit 130 saying it was interrupted", cmd.ProcessState, stderr.String())
	}
}

// TestCampaignRunInterrupted: 'campaign run' of a --vm campaign
// interrupted (a SIGTERM before Main, as a Ctrl-C at once) says it was
// stopped and exits 130, as run and bisect do; not 1. A stand-in QEMU on
// PATH: the signal comes before any boot, and the check that QEMU is
// installed must not decide the exit on a machine without it.
func TestCampaignRunInterrupted(t *testing.T) {
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "qemu-system-x86_64"), []byte("#!/bin/sh\n[ \"$1\" = -version ] && echo 'QEMU emulator version 7.2.0' && exit 0\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	k := fakeKernel(t, dir, "6.1.0-a")
	if r := runCLI(t, "campaign", "init", "kc", "--vm", "--a-kernel", k, "--b-kernel", k, "--boots", "2", "--", "run", "faultme", "-n", "2"); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	cmd := contendCmd(t, "campaign", "run", "kc")
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "CONTEND_TEST_EARLY_SIGNAL=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Run()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() || ws.ExitStatus() != 130 || !strings.Contains(stderr.String(), "stopped by") {
		t.Errorf("status %v, stderr %q; want exit 130, stopped by the signal", cmd.ProcessState, stderr.String())
	}
}

// TestRunWisKilledCompiler: 'run wis' whose compiler is killed says so,
// with the signal, and exits 1: not "does not compile", exit 2, which
// blames the user's test.
func TestRunWisKilledCompiler(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gcc"), []byte("#!/bin/sh\nkill -KILL $$\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	t.Setenv("CONTEND_WIS_OBJECTS", "")
	test := filepath.Join(t.TempDir(), "killed.c")
	os.WriteFile(test, []byte(`char *testcase_description = "killed compiler";
void testcase(unsigned long long *iterations, unsigned long nr) { for (;;) (*iterations)++; }
`), 0o644)
	r := runCLI(t, "run", "wis", "--test", test, "-n", "1", "--out", filepath.Join(t.TempDir(), "r.jsonl"))
	if r.code != 1 || !strings.Contains(r.stderr, "gcc was killed by signal 9 (SIGKILL)") || strings.Contains(r.stderr, "does not compile") {
		t.Errorf("exit %d, %q; want exit 1 naming the signal", r.code, r.stderr)
	}
}
