package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/lock"
	"contend/internal/results"
	"contend/internal/run"
)

// TestTwoRunsSerialise: while the lock is held, two runs started at once
// both wait (saying who holds it); once it is free they run one after the
// other: their result files' [start, end] never overlap.
func TestTwoRunsSerialise(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "contend.lock")
	held, err := lock.Acquire(context.Background(), path, []string{"the-test"}, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var errs [2]syncBuffer
	var outs [2]string
	var cmds [2]interface{ Wait() error }
	for i := range 2 {
		outs[i] = filepath.Join(dir, "r"+strconv.Itoa(i)+".json")
		c := contendCmd(t, "run", "faultme", "--threads", "1", "--mem", "256KiB", "-n", "3", "--evidence", "none", "--out", outs[i])
		c.Env = append(c.Env, "CONTEND_LOCK="+path)
		c.Stderr = &errs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = c
	}
	// Both wait for the test: each says so on stderr (polled, no timing).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		n := 0
		for i := range errs {
			if strings.Contains(errs[i].String(), "waiting: another benchmark holds") {
				n++
			}
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			held.Release()
			t.Fatalf("the runs did not both wait: %q / %q", errs[0].String(), errs[1].String())
		}
	}
	for i := range errs {
		if s := errs[i].String(); !strings.Contains(s, "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(s, "(the-test)") {
			t.Errorf("run %d's waiting message does not name the holder: %q", i, s)
		}
	}
	held.Release()
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, errs[i].String())
		}
	}
	var fs [2]*results.File
	for i := range fs {
		if fs[i], err = results.Read(outs[i]); err != nil {
			t.Fatal(err)
		}
	}
	a, b := fs[0], fs[1]
	if b.Start.Before(a.Start) {
		a, b = b, a
	}
	if b.Start.Before(a.End) {
		t.Errorf("the runs overlapped: [%s, %s] and [%s, %s]", a.Start, a.End, b.Start, b.End)
	}
}

func TestNoWaitRefusesAndNoLockRuns(t *testing.T) {
	dir := chdirTemp(t)
	path := filepath.Join(dir, "contend.lock")
	t.Setenv("CONTEND_LOCK", path)
	held, err := lock.Acquire(context.Background(), path, []string{"the-test"}, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "64KiB", "-n", "1", "--no-wait", "--out", "busy.json")
	if r.code != exitBusy || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("--no-wait while held: exit %d, stderr %q; want exit %d and one line naming the holder", r.code, r.stderr, exitBusy)
	}
	if _, err := os.Stat("busy.json"); !os.IsNotExist(err) {
		t.Errorf("--no-wait refused but left a result file")
	}
	r = runCLI(t, "run", "faultme", "--threads", "1", "--mem", "64KiB", "-n", "1", "--no-lock", "-q", "--out", "nolock.json")
	if r.code != 0 {
		t.Errorf("--no-lock while held: exit %d, %q", r.code, r.stderr)
	}
	before := listFiles(t, dir)
	r = runCLI(t, "run", "faultme", "--no-lock", "--no-wait", "-n", "1")
	assertUsageError(t, r, "--no-wait and --no-lock", dir, before)
}

// syncBuffer is a bytes.Buffer safe to read while a child's output is
// copied into it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestQuietSilencesWaiting: -q silences the "waiting:" line of a run that
// finds the lock held (it printed it on the old code). The command's
// context is cancelled before the call, so the wait ends after its first
// look at the holder, without any timing; the same call without -q says
// it waited.
func TestQuietSilencesWaiting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contend.lock")
	t.Setenv("CONTEND_LOCK", path)
	held, err := lock.Acquire(context.Background(), path, []string{"the-test"}, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	for _, quiet := range []bool{false, true} {
		var stderr bytes.Buffer
		c := cli.NewContext(&cli.App{ErrWriter: &stderr}, nil, nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c.Context = ctx
		out := filepath.Join(t.TempDir(), "out.json")
		err := doJob(c, repOptions{quiet: quiet, out: out}, run.Job{File: &results.File{}}, run.TerminalOptions{})
		if err == nil || !strings.Contains(err.Error(), "interrupted while waiting") {
			t.Fatalf("quiet %v: error %v; want interrupted while waiting", quiet, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("quiet %v: the result file was made without the lock: %v", quiet, err)
		}
		if said := strings.Contains(stderr.String(), "waiting: another benchmark holds"); said == quiet {
			t.Errorf("quiet %v: stderr %q; want the waiting line only without -q", quiet, stderr.String())
		}
	}
}
