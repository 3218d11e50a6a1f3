package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"contend/internal/results"
)

// writerCommands returns, for every command that writes a result file, its
// arguments writing to out (cheap runs; log is a log file for import).
func writerCommands(out, log string) map[string][]string {
	return map[string][]string{
		"run":     {"run", "faultme", "--threads", "1", "--mem", "1MiB", "-n", "2", "--out", out},
		"ab":      {"ab", "faultme", "--mem", "1MiB", "--threads", "1", "--aa", "-n", "2", "--out", out},
		"ab exec": {"ab", "exec", "--aa", "--preset", "faultme", "-n", "2", "--out", out, "--", "/bin/true"},
		"sweep":   {"sweep", "faultme", "--mem", "1MiB", "--threads", "1,2", "-n", "1", "--out", out},
		"exec":    {"exec", "--preset", "faultme", "-n", "2", "--out", out, "--", "/bin/true"},
		"import":  {"import", "--preset", "faultme", "--out", out, log},
		"verify":  {"verify", "faultme", "--threads", "1", "--mem", "1MiB", "-n", "3", "--out", out, "--", "/bin/true"},
	}
}

// TestOutNeverReplaced: every command that writes a result file refuses an
// existing --out file (exit 2, the file byte-identical), and refuses one
// that another process holds locked even with --replace, naming the
// holder.
func TestOutNeverReplaced(t *testing.T) {
	dir := chdirTemp(t)
	log := filepath.Join(dir, "log.txt")
	os.WriteFile(log, []byte("time = 5 usecs\n"), 0o644)
	out := filepath.Join(dir, "precious.json")
	precious := []byte("ten repetitions of a run that took all night\n")
	os.WriteFile(out, precious, 0o644)
	for name, args := range writerCommands(out, log) {
		t.Run(name, func(t *testing.T) {
			before := listFiles(t, dir)
			assertUsageError(t, runCLI(t, args...), out+" exists", dir, before)
			if b, _ := os.ReadFile(out); !bytes.Equal(b, precious) {
				t.Fatalf("the existing file was changed: %q", b)
			}
		})
	}
	// Locked by a writer (this process): refused even with --replace.
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(fh.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	for name, args := range writerCommands(out, log) {
		t.Run(name+" locked", func(t *testing.T) {
			before := listFiles(t, dir)
			want := out + " is being written by pid " + strconv.Itoa(os.Getpid())
			assertUsageError(t, runCLI(t, append(args[:len(args):len(args)], "--replace")...), want, dir, before)
			if b, _ := os.ReadFile(out); !bytes.Equal(b, precious) {
				t.Fatalf("the locked file was changed: %q", b)
			}
		})
	}
	fh.Close()
	// Unlocked, --replace never replaces a file that is not a result
	// file, and replaces a result file.
	assertUsageError(t, runCLI(t, "import", "--preset", "faultme", "--replace", "--out", out, log),
		out+" exists and is not a contend result file", dir, listFiles(t, dir))
	os.Remove(out)
	if r := runCLI(t, "import", "--preset", "faultme", "--out", out, log); r.code != 0 {
		t.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, "import", "--preset", "faultme", "--replace", "--out", out, log)
	if r.code != 0 {
		t.Fatalf("--replace: exit %d: %s", r.code, r.stderr)
	}
	if f, err := results.Read(out); err != nil || len(f.Reps) != 1 {
		t.Fatalf("after --replace: %v", err)
	}
	assertUsageError(t, runCLI(t, "run", "faultme", "--append", "--replace", "--out", out), "--append and --replace", dir, listFiles(t, dir))
	assertUsageError(t, runCLI(t, "run", "faultme", "--append"), "--append needs --out", dir, listFiles(t, dir))
}

// TestOutAppend: --append adds the repetitions of the same configuration
// to a file (version 1 or 2) and refuses another configuration, leaving
// the file byte-identical.
func TestOutAppend(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "a.json")
	run := func(extra ...string) result {
		return runCLI(t, append([]string{"run", "faultme", "--threads", "1", "--mem", "1MiB", "-q", "--out", out}, extra...)...)
	}
	if r := run("-n", "2", "--append"); r.code != 0 { // a missing file is created
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r := run("-n", "3", "--append"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 5 || !f.Complete || len(f.Appends) != 1 || f.Appends[0].FirstRep != 2 {
		t.Fatalf("after appending 3 to 2: %d reps, complete %v, appends %+v", len(f.Reps), f.Complete, f.Appends)
	}
	for i, r := range f.Reps {
		if r.Index != i || r.Status != results.StatusOK {
			t.Errorf("rep %d: index %d status %s", i, r.Index, r.Status)
		}
	}
	before, _ := os.ReadFile(out)
	r := runCLI(t, "run", "faultme", "--threads", "2", "--mem", "1MiB", "-n", "1", "--out", out, "--append")
	assertUsageError(t, r, `configuration "threads=1 mem=1MiB stride=4KiB thp=leave" differs from this run's "threads=2`, dir, listFiles(t, dir))
	r = runCLI(t, "exec", "--preset", "faultme", "-n", "1", "--out", out, "--append", "--", "/bin/true")
	assertUsageError(t, r, "it holds a run, not an exec", dir, listFiles(t, dir))
	if after, _ := os.ReadFile(out); !bytes.Equal(after, before) {
		t.Error("a refused --append changed the file")
	}

	// A version-1 file is converted once, then appended to.
	v1, err := results.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(out, v1, 0o644)
	if r := run("-n", "1", "--append"); r.code != 0 {
		t.Fatalf("append to version 1: exit %d: %s", r.code, r.stderr)
	}
	g, err := results.Read(out)
	if err != nil || len(g.Reps) != 6 || g.Version != results.FormatVersion || len(g.Appends) != 2 {
		t.Fatalf("append to version 1: %v, %+v", err, g)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestOutConcurrentWriters: a second run writing the --out of a running
// one is refused (exit 2) naming the running one's pid, with and without
// --append and --replace, and the running one's repetitions stay.
func TestOutConcurrentWriters(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "c.json")
	cmd := contendCmd(t, "run", "faultme", "--threads", "1", "--mem", "1MiB", "-n", "100000", "--out", out, "--quiet")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watch := watchRun(cmd.Process.Pid)
	waitReps(t, out, 1)
	want := out + " is being written by pid " + strconv.Itoa(cmd.Process.Pid)
	for _, mode := range [][]string{nil, {"--append"}, {"--replace"}} {
		r := runCLI(t, append([]string{"run", "faultme", "--threads", "1", "--mem", "1MiB", "-n", "1", "--out", out}, mode...)...)
		assertUsageError(t, r, want, dir, listFiles(t, dir))
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	watch.assertGone(t)
	f, err := results.Read(out)
	if err != nil || len(f.Reps) < 1 {
		t.Fatalf("the running writer's file: %v", err)
	}
	for _, r := range f.Reps {
		if r.Config != 0 || r.Status != results.StatusOK && r.Status != results.StatusInterrupted {
			t.Errorf("rep %+v", r)
		}
	}
}

// TestDiskFullNamesUnsavedReps fills the file size limit (RLIMIT_FSIZE,
// as a full disk) after two repetitions: the run stops with exit 1, says
// which repetition was not saved, and the file reads with the two.
func TestDiskFullNamesUnsavedReps(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit(1)")
	}
	dir := chdirTemp(t)
	ref := filepath.Join(dir, "ref.json")
	if r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "1MiB", "-n", "3", "-q", "--out", ref); r.code != 0 {
		t.Fatalf("reference run: %s", r.stderr)
	}
	b, _ := os.ReadFile(ref)
	lines := strings.Split(string(b), "\n")
	header, maxRep, minRep := len(lines[0])+1, 0, 1<<30
	for _, l := range lines[1:4] {
		maxRep, minRep = max(maxRep, len(l)+1), min(minRep, len(l)+1)
	}
	limit := header + 2*maxRep + minRep/2
	out := filepath.Join(dir, "full.json")
	cmd := contendCmd(t, "run", "faultme", "--threads", "1", "--mem", "1MiB", "-n", "6", "-q", "--out", out)
	cmd.Args = append([]string{prlimit, fmt.Sprintf("--fsize=%d", limit), "--"}, cmd.Args...)
	cmd.Path = prlimit
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d (%v), want 1; stderr %q", code, cmd.ProcessState, stderr.String())
	}
	if !strings.Contains(stderr.String(), "repetition 3 NOT saved in "+out+" (it holds 2 of the 3 repetitions the summary counts)") ||
		!strings.Contains(stderr.String(), "file too large") {
		t.Errorf("stderr does not name the unsaved repetition and the cause:\n%s", stderr.String())
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("the file after the failed write: %v", err)
	}
	if len(f.Reps) != 2 || f.Complete {
		t.Errorf("file holds %d reps (complete %v), want the 2 saved", len(f.Reps), f.Complete)
	}
}

// TestEarlySignal: a SIGTERM that arrives before Main has installed its
// handler (here: sent by the process to itself first thing) stops the run
// cleanly, exit 130 with a readable file, instead of killing contend by
// the signal.
func TestEarlySignal(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "e.json")
	cmd := contendCmd(t, "run", "faultme", "--threads", "1", "--mem", "1MiB", "-n", "3", "--out", out)
	cmd.Env = append(cmd.Env, "CONTEND_TEST_EARLY_SIGNAL=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Run()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() || ws.ExitStatus() != 130 {
		t.Fatalf("status %v, want exit 130; stderr %q", cmd.ProcessState, stderr.String())
	}
	f, err := results.Read(out)
	if err != nil || len(f.Reps) != 0 || f.Complete {
		t.Errorf("file: %v %+v", err, f)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr: %q", stderr.String())
	}
}
