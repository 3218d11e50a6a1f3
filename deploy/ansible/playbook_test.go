// Package ansible holds the tests of the Ansible role and playbook in
// this directory (fleet.yml, roles/contend): they run the playbook against
// hosts of a local inventory.
package ansible

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/results"
	"contend/internal/testutil"
)

// testContext returns a context that ends before the test binary's
// -timeout does (a tenth of the time left earlier, at most a minute), so
// that a play that hangs is killed by the test, which then fails and
// cleans up: a binary killed by its timeout runs no cleanup (at load 400
// it left ansible-playbook running for 30 minutes).
func testContext(t *testing.T) context.Context {
	d, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), d.Add(-min(time.Until(d)/10, time.Minute)))
	t.Cleanup(cancel)
	return ctx
}

// command returns the command name with args in a process group of its
// own, ended with testContext: when the context ends or the test does
// (t.Cleanup), the whole group is killed (ansible-playbook's workers and
// what they started), and the command itself if the test binary dies
// first (Pdeathsig).
func command(t *testing.T, ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second // for the output of what the group's death left holding the pipes
	t.Cleanup(func() {
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return cmd
}

// ansiblePlaybook finds ansible-playbook: absent, the test is skipped
// with the reason, except in CI (CI=true), where it fails.
func ansiblePlaybook(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("ansible-playbook")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ansible-playbook is not installed, and CI=true: .ci/run installs the Debian package ansible-core")
		}
		t.Skip("ansible-playbook is not installed: apt-get install ansible-core to run the playbook tests")
	}
	return p
}

func TestPlaybookSyntax(t *testing.T) {
	ap := ansiblePlaybook(t)
	ctx := testContext(t)
	out, err := command(t, ctx, ap, "--syntax-check", "-i", "inventory.example.ini", "fleet.yml").CombinedOutput()
	if err != nil {
		t.Fatalf("ansible-playbook --syntax-check: %v\n%s", err, out)
	}
	if lint, err := exec.LookPath("ansible-lint"); err == nil {
		cmd := command(t, ctx, lint, "--offline", "fleet.yml")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("ansible-lint: %v\n%s", err, out)
		}
	} else {
		t.Log("ansible-lint not installed: only --syntax-check ran")
	}
}

// TestPlaybookLocalFleet runs fleet.yml on a local inventory: two hosts
// that run (different arguments, their own install directories), one
// refused by the limits check, one whose run is killed by its timeout, and
// one unreachable (ssh to a closed port). The others complete, every
// host's files are fetched, the status file and the merged report name the
// hosts without results, and nothing of contend is left running.
func TestPlaybookLocalFleet(t *testing.T) {
	ap := ansiblePlaybook(t)
	ctx := testContext(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "contend")
	build := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "./cmd/contend")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	inv := `[fleet]
h1 contend_command="ab faultme --mem 16MiB --a '--threads 1' --b '--threads {{ contend_cpus }}' -n 6"
h2 contend_command="ab faultme --mem 16MiB --a '--threads 1' --b '--threads 2' -n 4"
refused contend_min_cpus=100000
killed contend_run_timeout=1 contend_command="ab faultme --mem 16MiB --a '--threads 1' --b '--threads 2' -n 100000"
gone ansible_connection=ssh ansible_host=127.0.0.1 ansible_port=1 ansible_ssh_common_args='-o ConnectTimeout=3 -o StrictHostKeyChecking=no -o BatchMode=yes'
dflt
camp contend_command="campaign step camp"
readme1 contend_command="README1"
readme2 contend_command="README2"

[local]
h1
h2
refused
killed
dflt
camp
readme1
readme2

[local:vars]
ansible_connection=local

[fleet:vars]
ansible_python_interpreter=/usr/bin/python3
`
	// readme1 and readme2 run the fleet commands of docs/fleet.md and
	// deploy/ansible/README.md, word for word.
	readmeCmds := readmeFleetCommands(t)
	inv = strings.Replace(inv, "README1", readmeCmds[0], 1)
	inv = strings.Replace(inv, "README2", readmeCmds[1], 1)
	for _, h := range []string{"h1", "h2", "refused", "killed", "camp", "readme1", "readme2"} {
		inv = strings.Replace(inv, "\n"+h+" ", "\n"+h+" contend_dir="+filepath.Join(tmp, "host-"+h)+" ", 1)
	}
	inv = strings.Replace(inv, "\ndflt\n", "\ndflt contend_dir="+filepath.Join(tmp, "host-dflt")+"\n", 1)
	// camp runs the steps of a campaign whose directory lies in its
	// results directory, as deploy/ansible/README.md says to: one step a
	// play, each play a boot. Side A is this machine's kernel, so that
	// the first step runs here.
	campDir := filepath.Join(tmp, "host-camp", "results", "camp")
	os.MkdirAll(filepath.Dir(campDir), 0o755)
	uname, err := exec.Command("uname", "-r").Output()
	if err != nil {
		t.Fatal(err)
	}
	initCamp := exec.Command(bin, "campaign", "init", campDir, "--boots", "2",
		"--a-boot-command", "true", "--a-release", strings.TrimSpace(string(uname)), "--b-boot-command", "true", "--b-release", "not-this-kernel",
		"--settle-min", "0", "--settle-max", "0s", "--settle-load", "1000", "--settle-psi", "100",
		"--", "run", "faultme", "--threads", "1", "--mem", "4MiB", "-n", "2")
	initCamp.Env = append(os.Environ(), "CONTEND_LOCK=off")
	if out, err := initCamp.CombinedOutput(); err != nil {
		t.Fatalf("campaign init: %v\n%s", err, out)
	}
	invPath := filepath.Join(tmp, "inventory.ini")
	if err := os.WriteFile(invPath, []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	// The revision recorded: the checkout's HEAD ("unknown" outside git,
	// allowed with a prebuilt binary only).
	wantRev := "unknown"
	if b, err := exec.Command("git", "-C", root, "rev-parse", "--verify", "HEAD^{commit}").Output(); err == nil {
		wantRev = strings.TrimSpace(string(b))
	}
	// What an interrupted play left on h2: a process of its contend
	// binary. The first cleanup kills it (the script's exit status 1)
	// without failing the host.
	left := filepath.Join(tmp, "host-h2", "bin", "contend")
	os.MkdirAll(filepath.Dir(left), 0o755)
	b, _ := os.ReadFile(testutil.BuildC(t, fakeContend))
	os.WriteFile(left, b, 0o755)
	leftover := command(t, ctx, left)
	if err := leftover.Start(); err != nil {
		t.Fatal(err)
	}
	leftDone := make(chan error, 1)
	go func() { leftDone <- leftover.Wait() }()
	res := filepath.Join(tmp, "results")
	cmd := command(t, ctx, ap, "-i", invPath, "fleet.yml",
		"-e", "contend_results="+res, "-e", "contend_prebuilt="+bin,
		"-e", "contend_controller_bin="+bin, "-e", "contend_src="+root)
	cmd.Env = append(os.Environ(), "ANSIBLE_NOCOLOR=1", "ANSIBLE_HOST_KEY_CHECKING=False",
		"ANSIBLE_LOCAL_TEMP="+filepath.Join(tmp, "ansible-local"), "ANSIBLE_REMOTE_TEMP="+filepath.Join(tmp, "ansible-remote"),
		// The local hosts share this machine: contends that take a
		// machine-wide lock take this test's own (the hosts' runs then
		// follow each other, as on shared hardware they should).
		"CONTEND_LOCK="+filepath.Join(tmp, "contend.lock"),
		// and journal their SysV sets and tracefs settings in this
		// test's own directory: the role's 'contend cleanup' then acts
		// on these runs only, not on the killed runs of other suites
		// or users of the machine (/run/contend).
		"CONTEND_IPC_DIR="+filepath.Join(tmp, "ipc"))
	playEnv := cmd.Env
	out, err := cmd.CombinedOutput()
	t.Cleanup(func() { killUnder(t, tmp) })
	// An unreachable host makes ansible-playbook exit 4; the play goes on.
	if ctx.Err() != nil {
		t.Fatalf("ansible-playbook killed with its process group: the test's time, a tenth before its -timeout, ran out (%v)\n%s", err, out)
	}
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 4) {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	status := readStatus(t, filepath.Join(res, "fleet-status.txt"))
	want := map[string]string{"h1": "ok ", "h2": "ok ", "refused": "refused 2", "killed": "failed run: killed after contend_run_timeout=1 s", "gone": "unreachable",
		"dflt": "ok ", "camp": "ok ", "readme1": "ok ", "readme2": "ok "}
	for h, w := range want {
		if !strings.HasPrefix(status[h]+" ", w) && !strings.HasPrefix(status[h], w) {
			t.Errorf("status of %s: %q, want it to start %q\n%s", h, status[h], w, out)
		}
	}
	if !strings.Contains(status["refused"], "contend_min_cpus is 100000") {
		t.Errorf("the refused host's reason does not name the limit: %q", status["refused"])
	}
	for _, h := range []string{"h1", "h2"} {
		f, err := results.Read(filepath.Join(res, h, "ab.jsonl"))
		if err != nil {
			t.Fatalf("%s's result file was not fetched: %v\n%s", h, err, out)
		}
		if !f.Complete || len(f.Configs) != 2 {
			t.Errorf("%s: complete=%v, %d configurations", h, f.Complete, len(f.Configs))
		}
		rev, _ := os.ReadFile(filepath.Join(res, h, "revision.txt"))
		if fs := strings.Fields(string(rev)); len(fs) < 2 || fs[0] != wantRev {
			t.Errorf("%s: revision.txt %q, want the commit %s", h, rev, wantRev)
		}
	}
	// The killed run's output is kept; its partial file when a repetition had ended.
	if b, err := os.ReadFile(filepath.Join(res, "killed", "output.txt")); err != nil || !strings.Contains(string(b), "exit status 124") {
		t.Errorf("killed host's output.txt: %v %q", err, b)
	}
	if _, err := os.Stat(filepath.Join(res, "refused")); err == nil {
		if fs, _ := filepath.Glob(filepath.Join(res, "refused", "*.json*")); len(fs) > 0 {
			t.Errorf("the refused host ran: %v", fs)
		}
	}
	report, err := os.ReadFile(filepath.Join(res, "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Fleet: time, B against A on", "h1 ", "h2 ", "Hosts without results:", "refused: refused", "gone: unreachable",
		"camp/camp is a campaign (skipped"} {
		if !strings.Contains(string(report), w) {
			t.Errorf("merged report lacks %q:\n%s", w, report)
		}
	}
	select {
	case werr := <-leftDone:
		if werr == nil || !strings.Contains(werr.Error(), "killed") {
			t.Errorf("h2's leftover process ended with %v, want killed", werr)
		}
	default:
		t.Errorf("h2's leftover process was not killed")
		leftover.Process.Kill()
		<-leftDone
	}
	if strings.Contains(status["gone"], "ok") {
		t.Errorf("gone: %q", status["gone"])
	}

	// The role's default command: A with the host's CPUs, B with four
	// times as many (contend_cpus is a string: '* 4' alone repeated it,
	// 2222 threads on a 2-CPU host).
	cpus := runtime.NumCPU()
	if b, err := exec.Command("getconf", "_NPROCESSORS_ONLN").Output(); err == nil {
		fmt.Sscan(string(b), &cpus)
	}
	f, err := results.Read(filepath.Join(res, "dflt", "ab.jsonl"))
	if err != nil {
		t.Fatalf("the default command's result file: %v\n%s", err, out)
	}
	for i, want := range []int{cpus, 4 * cpus} {
		got := ""
		for _, p := range f.Configs[i].Params {
			if p.Name == "threads" {
				got = p.Value
			}
		}
		if got != strconv.Itoa(want) {
			t.Errorf("default command, side %d: --threads %s, want %d (%d CPUs)", i, got, want, cpus)
		}
	}

	// The READMEs' commands: README.md's ab with the CPUs and four times
	// them, deploy/ansible/README.md's sweep from 1 to four times the CPUs
	// by doubling.
	threadsOf := func(c results.Config) string {
		for _, p := range c.Params {
			if p.Name == "threads" {
				return p.Value
			}
		}
		return ""
	}
	for _, c := range []struct {
		host, file string
		threads    []int
	}{
		{"readme1", "ab.jsonl", []int{cpus, 4 * cpus}},
		{"readme2", "sweep.jsonl", doublings(4 * cpus)},
	} {
		f, err := results.Read(filepath.Join(res, c.host, c.file))
		if err != nil {
			t.Errorf("%s (%s): %v", c.host, c.file, err)
			continue
		}
		var got []string
		for _, cfg := range f.Configs {
			got = append(got, threadsOf(cfg))
		}
		var want []string
		for _, n := range c.threads {
			want = append(want, strconv.Itoa(n))
		}
		if !f.Complete || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: complete %v, threads %v, want %v", c.host, f.Complete, got, want)
		}
	}

	// The campaign's first step ran (boot 1, side A, this kernel): its
	// directory was not moved aside before the step.
	ledger, err := os.ReadFile(filepath.Join(res, "camp", "camp", "ledger.jsonl"))
	if err != nil {
		t.Fatalf("the campaign's ledger was not fetched: %v\n%s", err, out)
	}
	if n := strings.Count(string(ledger), `"event":"done"`); n != 1 {
		t.Errorf("ledger after the play has %d done steps, want 1:\n%s\n%s", n, ledger, out)
	}

	// A second play, limited to camp (and localhost, where the status
	// file and the report are written): the step refuses, this boot ran
	// boot 1 already; the status file names camp alone (the hosts
	// outside --limit did not run: they are not "unreachable").
	cmd = command(t, ctx, ap, "-i", invPath, "fleet.yml", "--limit", "camp,localhost",
		"-e", "contend_results="+res, "-e", "contend_prebuilt="+bin,
		"-e", "contend_controller_bin="+bin, "-e", "contend_src="+root)
	cmd.Env = playEnv
	out2, _ := cmd.CombinedOutput()
	status = readStatus(t, filepath.Join(res, "fleet-status.txt"))
	if _, ok := status["camp"]; len(status) != 1 || !ok {
		t.Errorf("status after --limit camp,localhost: %v, want camp alone\n%s", status, out2)
	}
	if ledger, _ := os.ReadFile(filepath.Join(res, "camp", "camp", "ledger.jsonl")); strings.Count(string(ledger), `"event":"done"`) != 1 {
		t.Errorf("a second step in the same boot ran boot 2:\n%s", ledger)
	}
}

// readmeFleetCommands returns the contend_command of docs/fleet.md's fleet
// example and of deploy/ansible/README.md's, as they are written there.
func readmeFleetCommands(t *testing.T) []string {
	t.Helper()
	var cmds []string
	for _, c := range []struct{ file, re string }{
		{"../../docs/fleet.md", `-e "contend_command=\\"(.+?)\\""`},
		{"README.md", `-e "contend_command='(.+?)'"`},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(c.re).FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s has no fleet command matching %s", c.file, c.re)
		}
		cmds = append(cmds, string(m[1]))
	}
	return cmds
}

// doublings is 1, 2, 4, ... up to n.
func doublings(n int) []int {
	var out []int
	for i := 1; i <= n; i *= 2 {
		out = append(out, i)
	}
	return out
}

// TestFleetCommandsRender: every contend_command with a template in the
// READMEs, the role's defaults and the example inventory renders, with
// contend_cpus a string as the check's set_fact makes it, to thread
// counts of at most 4 x the CPUs (not '2222').
func TestFleetCommandsRender(t *testing.T) {
	ansiblePlaybook(t)
	ab, err := exec.LookPath("ansible")
	if err != nil {
		t.Skip("ansible is not installed")
	}
	ctx := testContext(t)
	re := regexp.MustCompile(`(?:--threads|\.\.)\s*\{\{[^}]*\}\}`)
	n := 0
	for _, p := range []string{"../../docs/fleet.md", "README.md", "roles/contend/defaults/main.yml", "inventory.example.ini"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllString(string(b), -1) {
			expr := m[strings.Index(m, "{{"):]
			n++
			out, err := command(t, ctx, ab, "localhost", "-c", "local", "-m", "ansible.builtin.debug", "-a", "msg={{ ["+strings.Trim(expr, "{} ")+"] }}",
				"-e", "contend_cpus=2").CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %s: %v\n%s", p, expr, err, out)
			}
			got := regexp.MustCompile(`"msg": \[\s*"?(\d+)"?\s*\]`).FindStringSubmatch(string(out))
			if got == nil {
				t.Fatalf("%s: %s: no value in\n%s", p, expr, out)
			}
			if v, _ := strconv.Atoi(got[1]); v < 1 || v > 8 {
				t.Errorf("%s: %s renders to %s threads with contend_cpus=\"2\"", p, expr, got[1])
			}
		}
	}
	if n < 4 {
		t.Errorf("found %d templated thread counts, want at least 4 (the READMEs, the defaults, the inventory)", n)
	}
}

func readStatus(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no status file: %v", err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		k, v, _ := strings.Cut(l, " ")
		m[k] = v
	}
	return m
}

// killUnder fails the test for (and kills) any process whose executable
// lies under dir: the playbook must leave none behind.
func killUnder(t *testing.T, dir string) {
	ps, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, p := range ps {
		exe, err := os.Readlink(p)
		if err != nil || !strings.HasPrefix(exe, dir+"/") {
			continue
		}
		t.Errorf("process %s (%s) left behind", filepath.Base(filepath.Dir(p)), exe)
		pid := filepath.Base(filepath.Dir(p))
		exec.Command("kill", "-KILL", pid).Run()
	}
}

// fakeContend stands for the contend binary in TestLeftoversScript: its
// cleanup prints $FAKE_CLEANUP and exits 1 when $FAKE_CLEANUP_FAIL is
// set; anything else sleeps for ten minutes (a leftover run: a loaded
// machine's play can take minutes to reach the cleanup).
const fakeContend = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "cleanup") == 0) {
		const char *say = getenv("FAKE_CLEANUP");
		if (say && *say)
			puts(say);
		return getenv("FAKE_CLEANUP_FAIL") ? 1 : 0;
	}
	sleep(600);
	return 0;
}
`

// TestLeftoversScript: the cleanup script kills the processes of the given
// binary (only those), passes on contend cleanup's sets and tracefs
// settings, and puts the tracefs event list back as saved; it exits 1 when
// it found any of these, 0 when nothing was left, 2 when it could not
// clean up (it exited 0 in every case: a play could not tell).
func TestLeftoversScript(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "tracefs")
	os.MkdirAll(trace, 0o755)
	setEvent := filepath.Join(trace, "set_event")
	os.WriteFile(setEvent, []byte("sched:sched_switch\n"), 0o644)
	saved := filepath.Join(dir, "saved")
	script := "roles/contend/files/contend-leftovers.sh"
	ctx := testContext(t)
	save := command(t, ctx, "sh", script, "--save-trace", saved)
	save.Env = append(os.Environ(), "CONTEND_TRACEFS="+trace)
	if out, err := save.CombinedOutput(); err != nil {
		t.Fatalf("save: %v %s", err, out)
	}
	fake := testutil.BuildC(t, fakeContend)
	b, _ := os.ReadFile(fake)
	bin := filepath.Join(dir, "bin", "contend")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, b, 0o755)
	other := filepath.Join(dir, "bin", "other")
	os.WriteFile(other, b, 0o755)
	theirs := command(t, ctx, other)
	if err := theirs.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { theirs.Process.Kill(); theirs.Wait() })
	run := func(env ...string) (string, int) {
		cmd := command(t, ctx, "sh", script, bin, saved)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("cleanup: %v %s", err, out)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}

	// A run that switched lock events on and was killed: a process of the
	// binary, a set that contend cleanup removes; a process of another
	// binary must survive.
	os.WriteFile(setEvent, []byte("sched:sched_switch\nlock:contention_begin\n"), 0o644)
	mine := command(t, ctx, bin)
	if err := mine.Start(); err != nil {
		t.Fatal(err)
	}
	mineDone := make(chan error, 1)
	go func() { mineDone <- mine.Wait() }()
	removed := "removed semaphore set 7 (key 0x12345678, left by contend pid 99)"
	out, rc := run("FAKE_CLEANUP=" + removed)
	select {
	case werr := <-mineDone:
		if werr == nil || !strings.Contains(werr.Error(), "killed") {
			t.Errorf("the process of %s ended with %v, want killed", bin, werr)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the process of %s was not killed", bin)
		mine.Process.Kill()
		<-mineDone
	}
	if theirs.ProcessState != nil || theirs.Process.Signal(syscall.Signal(0)) != nil {
		t.Errorf("the process of another binary was killed")
	}
	got, _ := os.ReadFile(setEvent)
	if rc != 1 || string(got) != "sched:sched_switch\n" || !strings.Contains(out, "tracefs events put back") ||
		!strings.Contains(out, "killed 1 leftover") || !strings.Contains(out, removed) {
		t.Errorf("exit status %d, set_event %q after cleanup; output %q", rc, got, out)
	}

	// Nothing left: exit 0, nothing said.
	if out, rc := run("FAKE_CLEANUP=no semaphore set left by contend"); rc != 0 || out != "" {
		t.Errorf("nothing left: exit status %d, output %q", rc, out)
	}
	// Each kind of leftover alone makes exit status 1.
	if out, rc := run("FAKE_CLEANUP=restored the tracefs settings of contend pid 99"); rc != 1 || !strings.Contains(out, "restored the") {
		t.Errorf("tracefs journal restored: exit status %d, output %q", rc, out)
	}
	os.WriteFile(setEvent, []byte(""), 0o644)
	if out, rc := run(); rc != 1 || !strings.Contains(out, "tracefs events put back") {
		t.Errorf("set_event changed: exit status %d, output %q", rc, out)
	}
	// contend cleanup failed: exit 2, its words passed on.
	if out, rc := run("FAKE_CLEANUP=cannot read the IPC journal: denied", "FAKE_CLEANUP_FAIL=1"); rc != 2 || !strings.Contains(out, "cannot read the IPC journal") {
		t.Errorf("cleanup failed: exit status %d, output %q", rc, out)
	}

	// The words the script looks for are contend cleanup's.
	src, err := os.ReadFile("../../internal/cleanup/cleanup.go") // the work of contend cleanup
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"removed semaphore set `, `"restored the "`} {
		if !strings.Contains(string(src), w) {
			t.Errorf("contend cleanup no longer prints %s: contend-leftovers.sh looks for it", w)
		}
	}
}
