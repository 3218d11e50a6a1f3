package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const robotMails = "../../internal/robotmail/testdata/"

// TestReproducePlan prints the plan of a robot mail: the report, the
// mapping, what is not mapped, the commands.
func TestReproducePlan(t *testing.T) {
	r := runCLI(t, "reproduce", robotMails+"linus-futex4.mail", "--tests", "/src/will-it-scale/tests")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, w := range []string{"report: [linus:master] [futex] 7c4f75a21f: will-it-scale.per_thread_ops 98.3% regression",
		"will-it-scale futex4, thread mode", "not mapped:", "plan:", "contend campaign init repro-7c4f75a21f",
		"--test /src/will-it-scale/tests/futex4.c --mode thread"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("no %q in:\n%s", w, r.stdout)
		}
	}
}

// TestReproduceRefuses checks the refusals: one line, exit 2.
func TestReproduceRefuses(t *testing.T) {
	dir := t.TempDir()
	prose := filepath.Join(dir, "prose.mail")
	os.WriteFile(prose, []byte("Subject: lunch?\n\nAt noon.\n"), 0o644)
	link := filepath.Join(dir, "link.mail")
	os.Symlink(prose, link)
	os.Chmod(dir, 0o1777)
	defer os.Chmod(dir, 0o755)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"reproduce"}, "give one MAIL"},
		{[]string{"reproduce", filepath.Join(dir, "none.mail")}, "no such file"},
		{[]string{"reproduce", dir}, "is a directory"},
		{[]string{"reproduce", prose}, "not a kernel test robot report: no 'testcase:' line"},
		{[]string{"reproduce", link}, "symbolic link"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--run"}, "--run: which will-it-scale? give --tests DIR"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--run", "--tests", dir}, "no futex4.c there"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--runs", "2"}, "--runs"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "-n", "10"}, "--runs goes with --run"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "-n", "2", "--run"}, "--runs: 2 is out of range"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--no-wait"}, "--no-wait goes with --run"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--noise", prose}, "--noise"},
	}
	for _, c := range cases {
		r := runCLI(t, c.args...)
		msg := strings.TrimSpace(r.stderr)
		if r.code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", c.args, r.code, msg, c.want)
		}
	}
}

// TestReproduceKernelsRefused checks the refusals of the kernels' flags
// (reused from 'campaign init --vm'): one line naming the flag, exit 2,
// and no campaign directory, not even a half-made one.
func TestReproduceKernelsRefused(t *testing.T) {
	mail, err := filepath.Abs(robotMails + "linus-futex4.mail")
	if err != nil {
		t.Fatal(err)
	}
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	ka, kb := fakeKernel(t, dir, "6.1.0-a"), fakeKernel(t, dir, "6.1.0-b")
	tests := filepath.Join(dir, "tests")
	os.MkdirAll(tests, 0o755)
	os.WriteFile(filepath.Join(tests, "futex4.c"), []byte("void testcase(unsigned long long *i, unsigned long n) { for (;;) (*i)++; }\n"), 0o644)
	broken := filepath.Join(dir, "broken")
	os.MkdirAll(broken, 0o755)
	os.WriteFile(filepath.Join(broken, "futex4.c"), []byte("void testcase(int {\n"), 0o644)
	out := filepath.Join(dir, "camp")
	run := []string{"reproduce", mail, "--run", "--tests", tests, "--out", out}
	ok := []string{"--a-kernel", ka, "--b-kernel", kb}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", mail, "--a-kernel", ka}, "--a-kernel and --b-kernel go together"},
		{[]string{"reproduce", mail, "--b-kernel", kb}, "--a-kernel and --b-kernel go together"},
		{[]string{"reproduce", mail, "--a-initrd", ka}, "--a-initrd goes with --a-kernel and --b-kernel"},
		{[]string{"reproduce", mail, "--b-append", "quiet"}, "--b-append goes with --a-kernel and --b-kernel"},
		{[]string{"reproduce", mail, "--vm-accel", "tcg"}, "--vm-accel goes with --a-kernel and --b-kernel"},
		{[]string{"reproduce", mail, "--boots", "3"}, "--boots goes with --a-kernel and --b-kernel"},
		{[]string{"reproduce", mail, "--runs", "5"}, "--runs goes with --run"},
		{append([]string{"reproduce", mail, "--boots", "4"}, ok...), "--boots goes with --run"},
		{append([]string{"reproduce", mail, "--boots", "1"}, ok...), "--boots: 1 is out of range"},
		{append([]string{"reproduce", mail, "--vm-mem", "1MiB"}, ok...), "--vm-mem"},
		{append([]string{"reproduce", mail, "--vm-timeout", "5m"}, ok...), "--vm-timeout goes with --run"},
		{append([]string{"reproduce", mail, "--a-append", "quiet"}, ok...), "--a-append goes with --run"},
		{append([]string{"reproduce", mail, "--vm-accel", "xen"}, ok...), "--vm-accel"},
		{append(append([]string{}, run...), "--a-kernel", filepath.Join(dir, "none"), "--b-kernel", kb), "--a-kernel: "},
		{append(append([]string{}, run...), "--a-kernel", ka, "--b-kernel", kb, "--a-initrd", filepath.Join(dir, "none")), "--a-initrd: "},
		{append([]string{"reproduce", mail, "--run", "--tests", broken, "--out", out}, ok...), "does not compile"},
	} {
		r := runCLI(t, c.args...)
		msg := strings.TrimSpace(r.stderr)
		if r.code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", c.args[2:], r.code, msg, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v left %s behind", c.args[2:], out)
		}
	}
	// Without --run the kernels shape the plan: the campaign in VMs.
	r := runCLI(t, append([]string{"reproduce", mail, "--tests", tests}, ok...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "contend campaign init repro-7c4f75a21f --vm --a-kernel "+ka+" --b-kernel "+kb) || !strings.Contains(r.stdout, "contend campaign run repro-7c4f75a21f") {
		t.Errorf("plan with kernels: exit %d, %s\n%s", r.code, r.stderr, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); err == nil {
		t.Error("the plan made results/")
	}
}
