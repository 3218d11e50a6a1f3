package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/earlysig"
	"contend/internal/harness"
	"contend/internal/ipcown"
	"contend/internal/plot"
)

// TestMain lets the test binary stand in for the contend binary: as the
// repetition child (harness runs os.Executable), and as a whole contend
// process when CONTEND_TEST_AS_MAIN is set (for tests that signal or kill
// the parent).
func TestMain(m *testing.M) {
	// The suite runs many contend commands at once, in parallel packages:
	// no machine-wide lock, unless a test names its own lock file
	// (lock_test.go). Children inherit it.
	if os.Getenv("CONTEND_LOCK") == "" {
		os.Setenv("CONTEND_LOCK", "off")
	}
	if os.Getenv("CONTEND_TEST_HOLD_THREADS") != "" {
		// Tasks of a user, for TestNprocRefusedBeforeTheRun.
		os.Exit(holdThreads(os.Getenv("CONTEND_TEST_HOLD_THREADS")))
	}
	if len(os.Args) > 1 && os.Args[1] == harness.ChildArg {
		os.Exit(harness.ChildMain(os.Args[2:]))
	}
	if os.Getenv("CONTEND_TEST_AS_PLOT") == "1" {
		// The contend-plot helper (see plot_test.go).
		os.Exit(plot.Main(os.Args[1:], os.Stderr))
	}
	if os.Getenv("CONTEND_TEST_AS_MAIN") == "1" {
		if os.Getenv("CONTEND_TEST_EARLY_SIGNAL") == "1" {
			// A SIGTERM before Main installs its handler (see
			// TestEarlySignal), there once earlysig's (buffered)
			// channel holds it: a fixed sleep was a bet that the
			// runtime delivers it in time, which a loaded machine
			// could lose (the signal then came during the run).
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			for deadline := time.Now().Add(time.Minute); len(earlysig.C) == 0 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		os.Exit(Main(append([]string{"contend"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	// The SysV and tracefs journal (ipcown.Dir) of the suite is its own:
	// the machine's (/run/contend for root) is shared with every other
	// suite and real run, whose killed runs' entries 'contend cleanup'
	// here would act on (and theirs on ours), and whose stale sets made
	// a check of 'no set left by contend' depend on them. Children inherit
	// it.
	code := func() int {
		if os.Getenv(ipcown.DirEnv) == "" {
			dir, err := os.MkdirTemp("", "contend-test-ipc-")
			if err != nil {
				fmt.Fprintln(os.Stderr, "TestMain: the journal directory:", err)
				return 1
			}
			defer os.RemoveAll(dir)
			os.Setenv(ipcown.DirEnv, dir)
			// Before the directory goes, the sets of contends that
			// died with their entries in it (a test that SIGKILLs
			// contend and runs no cleanup): removed and named, or
			// they would outlive the only journal that proves them
			// contend's.
			defer removeStaleSets()
		}
		// Every child that runs this binary is contend from here on:
		// bisect's measurements run os.Executable, as a real search
		// runs contend. Set for the whole suite rather than by t.Setenv
		// in each test, which would forbid t.Parallel.
		os.Setenv("CONTEND_TEST_AS_MAIN", "1")
		// The parallel tests (the bisects, the fault trials, the
		// README's examples, the build of TestEnvRecordsBuild, the runs
		// of TestShowFits80Columns, and 21 short ones beside them)
		// mostly wait on processes of their own: all of them at once
		// (64, more than there are), not GOMAXPROCS at a time, unless
		// -parallel says otherwise (docs/testing.md). The fault trials,
		// which take CONTEND_FAULT_BUDGET whatever runs beside them,
		// then wait for no slot (at four, the phase was their budget
		// after up to two bisects; at eight, after the short tests).
		flag.Parse()
		given := false
		flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
		if !given {
			flag.Set("test.parallel", "64")
		}
		return m.Run()
	}()
	os.Exit(code)
}

// removeStaleSets removes the semaphore sets of dead contends journaled in
// the suite's directory, and says which it removed.
func removeStaleSets() {
	stale, err := ipcown.StaleEntries()
	if err != nil {
		fmt.Fprintln(os.Stderr, "TestMain: the journal:", err)
		return
	}
	for _, s := range stale {
		if s.Set.ID >= 0 {
			fmt.Fprintf(os.Stderr, "TestMain: removed semaphore set %d (key 0x%08x) left by a contend the tests killed (pid %d)\n", s.Set.ID, uint32(s.Key), s.PID)
		}
		s.Remove()
	}
}

// result is what one in-process contend invocation printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs contend in-process with args (without the program name).
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"contend"}, args...), &out, &errb)
	return result{out.String(), errb.String(), code}
}

// contendCmd returns an exec.Cmd running this test binary as contend.
func contendCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "CONTEND_TEST_AS_MAIN=1")
	return cmd
}

// chdirTemp runs the test in a fresh directory, so that default result
// files land there.
func chdirTemp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

// listFiles returns every file under dir, relative, sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var fs []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			fs = append(fs, rel)
		}
		return nil
	})
	return fs
}

// ipcsSem returns the ids of the SysV semaphore sets on the machine.
func ipcsSem(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sysvipc/sem")
	if err != nil {
		t.Skipf("no /proc/sysvipc/sem: %v", err)
	}
	var ids []string
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 2 {
			continue
		}
		ids = append(ids, f[1])
	}
	return strings.Join(ids, " ")
}

// assertUsageError checks what every refusal of bad input must do: exit
// status 2, exactly one line on stderr containing want (usually the flag's
// name), nothing on stdout, and the files of dir as they were (before).
func assertUsageError(t *testing.T, r result, want, dir string, before []string) {
	t.Helper()
	if r.code != 2 {
		t.Errorf("exit %d, want 2\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	if lines := strings.Count(strings.TrimRight(r.stderr, "\n"), "\n") + 1; lines != 1 || r.stderr == "" {
		t.Errorf("want one line on stderr, got %d: %q", lines, r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q does not name %q", r.stderr, want)
	}
	if r.stdout != "" {
		t.Errorf("stdout not empty: %q", r.stdout)
	}
	if after := listFiles(t, dir); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("files changed: before %v after %v", before, after)
	}
}
