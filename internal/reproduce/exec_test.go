package reproduce

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/lock"
)

func setOf(names ...string) func(string) bool {
	return func(n string) bool {
		for _, m := range names {
			if m == n {
				return true
			}
		}
		return false
	}
}

func TestCheckKernelFlags(t *testing.T) {
	for _, c := range []struct {
		set   []string
		given bool
		err   string
	}{
		{nil, false, ""},
		{[]string{"a-kernel", "b-kernel", "vm-cpus", "boots"}, true, ""},
		{[]string{"a-kernel"}, false, "--a-kernel and --b-kernel go together"},
		{[]string{"b-kernel", "b-initrd"}, false, "--a-kernel and --b-kernel go together"},
		{[]string{"vm-mem"}, false, "--vm-mem goes with --a-kernel and --b-kernel"},
		{[]string{"boots"}, false, "--boots goes with --a-kernel and --b-kernel"},
	} {
		given, err := CheckKernelFlags(setOf(c.set...))
		if given != c.given || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: got %v, %v; want %v, %q", c.set, given, err, c.given, c.err)
		}
	}
}

func TestCheckPlanOnly(t *testing.T) {
	if err := CheckPlanOnly(setOf("a-kernel", "b-kernel")); err != nil {
		t.Errorf("the kernels without --run: %v (the plan names them)", err)
	}
	for _, n := range []string{"runs", "out", "boots", "a-initrd", "vm-accel"} {
		err := CheckPlanOnly(setOf("a-kernel", "b-kernel", n))
		if err == nil || !strings.Contains(err.Error(), "--"+n+" goes with --run") {
			t.Errorf("--%s without --run: %v", n, err)
		}
	}
}

func TestNewOptionsTestsFromEnv(t *testing.T) {
	t.Setenv("CONTEND_WIS_TESTS", "/wis/tests")
	o, err := NewOptions("", 0, "")
	if err != nil || o.Tests != "/wis/tests" || o.Noise != nil {
		t.Errorf("NewOptions without --tests: %+v, %v; want the tests of $CONTEND_WIS_TESTS, no noise", o, err)
	}
	if o, _ := NewOptions("/mine", 0, ""); o.Tests != "/mine" {
		t.Errorf("--tests /mine: %q", o.Tests)
	}
	if _, err := NewOptions("", 0, "/nonexistent/noise.jsonl"); err == nil {
		t.Error("a --noise file that does not exist: no error")
	}
}

func TestReadReportRefusesNonReport(t *testing.T) {
	p := t.TempDir() + "/mail"
	if err := os.WriteFile(p, []byte("Subject: hello\n\nnot a robot report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadReport(p)
	if err == nil || !strings.Contains(err.Error(), "reproduce "+p+":") {
		t.Errorf("ReadReport of a mail that is no robot report: %v; want a usage error naming the file", err)
	}
}

// fakeContend writes a script that stands for contend in RunAB: script is
// its body.
func fakeContend(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "contend")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunABSaysWhoHoldsTheLock: the run is quiet, so RunAB says who holds
// the machine-wide lock while it waits (pid and command, from the lock's
// record), once; a run refused by --no-wait (exit status 3) is ErrBusy.
func TestRunABSaysWhoHoldsTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contend.lock")
	held, err := lock.Acquire(context.Background(), path, []string{"contend", "run", "the-holder"}, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var log bytes.Buffer
	// The stand-in ends without a result file: the error says so; what
	// is checked is the line about the lock written meanwhile.
	_, err = RunAB(fakeContend(t, "sleep 1"), []string{"ab", "wis"}, filepath.Join(t.TempDir(), "out.json"), path, &log)
	want := fmt.Sprintf("reproduce: waiting: another benchmark holds %s: pid %d (contend run the-holder)", path, os.Getpid())
	if err == nil || strings.Count(log.String(), want) != 1 {
		t.Errorf("err %v, log:\n%s\nwant one %q", err, log.String(), want)
	}
	log.Reset()
	_, err = RunAB(fakeContend(t, "echo busy >&2; exit 3"), []string{"ab", "wis", "--no-wait"}, filepath.Join(t.TempDir(), "out.json"), path, &log)
	if !errors.Is(err, ErrBusy) || !strings.Contains(log.String(), "busy") {
		t.Errorf("--no-wait refused: %v, log %q", err, log.String())
	}
}
