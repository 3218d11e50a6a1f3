package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the master to read what is written to
// the slave, which is a terminal to esc.IsTTY.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pty's slave: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// compareOnTerminal runs compare with stdout on a pseudo-terminal and
// returns what the terminal got.
func compareOnTerminal(t *testing.T, args ...string) string {
	t.Helper()
	m, s := openPTY(t)
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, m) // until the slave is closed (EIO)
		got <- b.String()
	}()
	var errb bytes.Buffer
	code := Main(append([]string{"contend", "compare"}, args...), s, &errb)
	s.Close()
	out := <-got
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	return out
}

const (
	green = "\x1b[32mfaster\x1b[0m"
	red   = "\x1b[31mslower\x1b[0m"
)

// TestCompareColourOnTerminal: on a terminal the verdicts are coloured,
// faster green and slower red, in the headline and the table.
func TestCompareColourOnTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	out := compareOnTerminal(t, seeds+"rostedt-without.json", seeds+"rostedt-with.json")
	if strings.Count(out, green) != 2 || strings.Contains(out, red) {
		t.Errorf("want faster in green twice (headline, table):\n%q", out)
	}
	out = compareOnTerminal(t, seeds+"rostedt-with.json", seeds+"rostedt-without.json")
	if strings.Count(out, red) != 2 {
		t.Errorf("want slower in red twice:\n%q", out)
	}
}

// TestCompareNoColourInPipes: the same report into a pipe or a buffer has
// no escape sequence.
func TestCompareNoColourInPipes(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	r := runCLI(t, "compare", seeds+"rostedt-without.json", seeds+"rostedt-with.json")
	if r.code != 0 || strings.Contains(r.stdout, "\x1b") || !strings.Contains(r.stdout, "faster") {
		t.Errorf("exit %d, into a buffer:\n%q", r.code, r.stdout)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(pr)
		got <- string(b)
	}()
	var errb bytes.Buffer
	code := Main([]string{"contend", "compare", seeds + "rostedt-without.json", seeds + "rostedt-with.json"}, pw, &errb)
	pw.Close()
	if out := <-got; code != 0 || strings.Contains(out, "\x1b") || !strings.Contains(out, "faster") {
		t.Errorf("exit %d, into a pipe:\n%q", code, out)
	}
}

// TestCompareNoColourWithNOCOLOR: NO_COLOR set (any value) turns colour
// off on a terminal too, as does TERM=dumb.
func TestCompareNoColourWithNOCOLOR(t *testing.T) {
	for _, env := range [][2]string{{"1", "xterm"}, {"", "dumb"}} {
		t.Setenv("NO_COLOR", env[0])
		t.Setenv("TERM", env[1])
		out := compareOnTerminal(t, seeds+"rostedt-without.json", seeds+"rostedt-with.json")
		if strings.Contains(out, "\x1b") || !strings.Contains(out, "faster") {
			t.Errorf("NO_COLOR=%q TERM=%q: %q", env[0], env[1], out)
		}
	}
}

// TestColourEscapesFirst: a side's name with an escape sequence of its
// own reaches the terminal escaped; only contend's colours are raw.
func TestColourEscapesFirst(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	dir := t.TempDir()
	b, err := os.ReadFile(seeds + "rostedt-with.json")
	if err != nil {
		t.Fatal(err)
	}
	evil := dir + "/x\x1b[2Jy.json"
	if err := os.WriteFile(evil, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := compareOnTerminal(t, seeds+"rostedt-without.json", evil)
	if strings.Contains(out, "\x1b[2J") || !strings.Contains(out, green) {
		t.Errorf("the file name's escape reached the terminal, or no colour:\n%q", out)
	}
}
