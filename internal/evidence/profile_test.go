package evidence

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/tmpdir"
)

// spinC spends its time in one function of a name no library has (built
// -O0: a leaf keeps its frame pointer, so its caller is on the stack), for
// a fixed number of iterations (not a fixed time: a loaded machine gives
// it fewer samples, not another profile).
const spinC = `
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) void contend_profile_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}
int main(void)
{
	contend_profile_spin(150000000UL);
	printf("%lu\n", sink);
	return 0;
}
`

func buildSpin(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "spin.c")
	if err := os.WriteFile(src, []byte(spinC), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "spin")
	if out, err := exec.Command("gcc", "-O0", "-fno-omit-frame-pointer", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// TestProfileNamesTheHotFunction: the profile of a program that spends
// its time in one function names it as the top self symbol, with main
// above it in children; perf record's own CPU time is not in sched's
// k.tree_cpu (perf is reaped after sched has read RUSAGE_CHILDREN), and
// no recording is left in the collector's directory.
func TestProfileNamesTheHotFunction(t *testing.T) {
	bin := buildSpin(t)
	m, notes, ru := runGated(t, []string{"sched", "profile"}, bin)
	for _, n := range notes {
		t.Logf("note: %s", n)
	}
	self := m[ProfileSelf+"contend_profile_spin"]
	if self < 50 {
		t.Errorf("self share of contend_profile_spin = %.1f%%, want most of the samples: %v", self, m)
	}
	if ch := m[ProfileChildren+"main"]; ch < self {
		t.Errorf("children share of main %.1f%% < self of its callee %.1f%%", ch, self)
	}
	cpu := float64(ru.Utime.Nano() + ru.Stime.Nano())
	if d := math.Abs(m["k.tree_cpu"] - cpu); d > 2e6 {
		t.Errorf("k.tree_cpu %.0f ns, the child's CPU %.0f ns: perf record's time counted?", m["k.tree_cpu"], cpu)
	}
}

// TestProfileReaderIsNotTheChildsLeftover: perf record is reported as a
// helper process while it records, and reaped by Stop.
func TestProfileReaderIsNotTheChildsLeftover(t *testing.T) {
	s := Open([]string{"profile"})
	defer s.Close()
	if !strings.HasPrefix(s.Avail["profile"], "available") {
		t.Skipf("profile %s", s.Avail["profile"])
	}
	cmd := exec.Command("/bin/sleep", "0.2")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ev, err := Start(s, cmd)
	if err != nil {
		t.Fatal(err)
	}
	h := ev.Helpers()
	if len(h) != 1 {
		t.Fatalf("Helpers = %v, want perf record's pid", h)
	}
	if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", h[0])); !strings.HasPrefix(string(comm), "perf") {
		t.Errorf("helper %d is %q, not perf", h[0], comm)
	}
	cmd.Wait()
	ev.Stop()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", h[0])); err == nil {
		t.Errorf("perf record %d still there after Stop", h[0])
	}
	ents, _ := os.ReadDir(s.Active[0].(*profile).dir)
	if len(ents) != 1 || ents[0].Name() != tmpdir.OwnerFile {
		t.Errorf("recordings left: %v, want only the owner file", ents)
	}
}

// TestProfileLeavesNoPerfAfterKill: a process recording a profile killed
// with SIGKILL leaves no perf record behind (Pdeathsig of the thread that
// started it), and its directory of recordings is removed by the next
// profile opened.
func TestProfileLeavesNoPerfAfterKill(t *testing.T) {
	if os.Getenv("CONTEND_PROFILE_HELPER") == "1" {
		profileHelper()
		return
	}
	s := Open([]string{"profile"})
	if !strings.HasPrefix(s.Avail["profile"], "available") {
		s.Close()
		t.Skipf("profile %s", s.Avail["profile"])
	}
	s.Close()
	helper := exec.Command(os.Args[0], "-test.run=^TestProfileLeavesNoPerfAfterKill$")
	helper.Env = append(os.Environ(), "CONTEND_PROFILE_HELPER=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	perfPID, childPID := 0, 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "recording" {
			perfPID, _ = strconv.Atoi(f[1])
			childPID, _ = strconv.Atoi(f[2])
			break
		}
	}
	if perfPID == 0 {
		helper.Process.Kill()
		helper.Wait()
		t.Fatal("the helper never said it was recording")
	}
	helper.Process.Kill()
	helper.Wait()
	gone := func(pid int) bool {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if err := syscall.Kill(pid, 0); err != nil {
				return true
			}
			// A zombie of init's is gone for our purpose.
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(b), ") Z ") {
				return true
			}
		}
		return false
	}
	if !gone(perfPID) {
		syscall.Kill(perfPID, syscall.SIGKILL)
		t.Errorf("perf record %d outlived the contend that started it", perfPID)
	}
	// Its directory of recordings is removed by the next profile opened.
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-*", profileDirPrefix, helper.Process.Pid)))
	if len(left) != 1 {
		t.Errorf("the killed helper's directory: %v, want one", left)
	}
	again := Open([]string{"profile"})
	again.Close()
	for _, d := range left {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s left after another profile was opened", d)
		}
	}
	syscall.Kill(-childPID, syscall.SIGKILL) // the helper's child (sleep) is not the collector's
}

// profileHelper records a long sleep and says so, then waits to be killed.
func profileHelper() {
	s := Open([]string{"profile"})
	cmd := exec.Command("/bin/sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ev, err := Start(s, cmd)
	if err != nil || len(ev.Helpers()) != 1 {
		fmt.Println("failed", err)
		os.Exit(1)
	}
	fmt.Printf("recording %d %d\n", ev.Helpers()[0], cmd.Process.Pid)
	time.Sleep(60 * time.Second)
}

// TestProfileKeepsTheChildsProcesses: a system-wide recording keeps the
// samples of the child and of what it starts, never those of a process
// outside it (a busy loop started beside it, in a function of a name
// of its own), counts them (k.profile.samples), and keeps the child's
// folded stacks for one TakeFolded, its command name first.
func TestProfileKeepsTheChildsProcesses(t *testing.T) {
	bin := buildSpin(t)
	s := Open([]string{"profile"})
	defer s.Close()
	if !strings.HasPrefix(s.Avail["profile"], "available") {
		t.Skipf("profile %s", s.Avail["profile"])
	}
	p := s.Active[0].(*profile)
	if !p.wide {
		t.Skipf("not system-wide here: %s", p.why)
	}
	// The other process: the same spin under another name, started
	// before the child and outside it.
	other := filepath.Join(t.TempDir(), "other-spin")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, bytes.ReplaceAll(b, []byte("contend_profile_spin"), []byte("contend_profile_else")), 0o755); err != nil {
		t.Fatal(err)
	}
	o := exec.Command(other)
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { o.Process.Kill(); o.Wait() }()
	// The child: a shell that runs the spin as a process of its own.
	cmd := exec.Command("/bin/sh", "-c", bin+"; :")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ev, err := Start(s, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	m, notes := ev.Stop()
	for _, n := range notes {
		t.Logf("note: %s", n)
	}
	if m[ProfileSelf+"contend_profile_spin"] < 50 {
		t.Errorf("self share of the child's grandchild's contend_profile_spin = %.1f%%, want most: %v", m[ProfileSelf+"contend_profile_spin"], m)
	}
	for k := range m {
		if strings.Contains(k, "contend_profile_else") {
			t.Errorf("the other process's symbol was kept: %s", k)
		}
	}
	if n := m[ProfileSamples]; n < 10 {
		t.Errorf("k.profile.samples = %v, want the spin's many", n)
	}
	st := s.TakeFolded()
	found := 0.0
	for k, v := range st {
		if strings.HasPrefix(k, "spin;") && strings.HasSuffix(k, ";contend_profile_spin") {
			found += v
		}
		if strings.Contains(k, "contend_profile_else") {
			t.Errorf("folded stack of the other process: %s", k)
		}
	}
	if found == 0 {
		t.Errorf("no folded stack spin;...;contend_profile_spin in %d stacks", len(st))
	}
	if again := s.TakeFolded(); again != nil {
		t.Errorf("TakeFolded gave the stacks twice")
	}
}

// TestProfileAttachedWhereNotWide: where system-wide sampling is not
// allowed, perf record is attached to the child (inherited), says so in
// the header, and still names the hot function.
func TestProfileAttachedWhereNotWide(t *testing.T) {
	t.Setenv("CONTEND_TEST_EVIDENCE", "no-perf-wide")
	bin := buildSpin(t)
	s := Open([]string{"profile"})
	avail := s.Avail["profile"]
	s.Close()
	if !strings.HasPrefix(avail, "available") {
		t.Skipf("profile %s", avail)
	}
	if !strings.Contains(avail, "attached to the child (-p)") || !strings.Contains(avail, "system-wide sampling not allowed (injected)") {
		t.Errorf("header: %q", avail)
	}
	m, _, _ := runGated(t, []string{"profile"}, bin)
	if m[ProfileSelf+"contend_profile_spin"] < 50 {
		t.Errorf("self share of contend_profile_spin = %.1f%%: %v", m[ProfileSelf+"contend_profile_spin"], m)
	}
}

// TestProfileOpensWithPerfAlone: where perf is the only program on PATH,
// as in a guest's initramfs, the profile still opens (its probe recorded
// true, which a guest lacks: perf record exited 255 and said nothing).
func TestProfileOpensWithPerfAlone(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("no perf")
	}
	s := Open([]string{"profile"})
	avail := s.Avail["profile"]
	s.Close()
	if !strings.HasPrefix(avail, "available") {
		t.Skipf("profile %s", avail)
	}
	dir := t.TempDir()
	if err := os.Symlink(perf, filepath.Join(dir, "perf")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	s = Open([]string{"profile"})
	defer s.Close()
	if a := s.Avail["profile"]; !strings.HasPrefix(a, "available") {
		t.Errorf("with perf alone on PATH, profile %q", a)
	}
}

// TestLiveProfileDirKeptFromAnotherPIDNamespace: a contend in another PID
// namespace (a container, unshare -p) cannot see a live run's pid; its
// profile must not take the run's directory of recordings for stale and
// delete it. The directory is stale only when its owner's lock is free
// (internal/tmpdir).
func TestLiveProfileDirKeptFromAnotherPIDNamespace(t *testing.T) {
	if os.Getenv("CONTEND_PROFILE_NS_HELPER") == "1" {
		// The contend in the other namespace: opening a profile
		// removes the stale directories it finds.
		Open([]string{"profile"}).Close()
		os.Exit(0)
	}
	if os.Geteuid() != 0 {
		t.Skip("unshare -p needs root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare (util-linux) on PATH")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := Open([]string{"profile"})
	defer s.Close()
	if !strings.HasPrefix(s.Avail["profile"], "available") {
		t.Skipf("profile %s", s.Avail["profile"])
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, profileDirPrefix+"*"))
	if len(dirs) != 1 {
		t.Fatalf("the live profile's directories: %v, want one", dirs)
	}
	cmd := exec.Command(unshare, "-p", "--fork", "-m", "--mount-proc", os.Args[0], "-test.run=^TestLiveProfileDirKeptFromAnotherPIDNamespace$")
	cmd.Env = append(os.Environ(), "CONTEND_PROFILE_NS_HELPER=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("unshare -p --fork -m --mount-proc does not work here: %v: %s", err, bytes.TrimSpace(out))
	}
	if _, err := os.Stat(dirs[0]); err != nil {
		t.Errorf("a contend in another PID namespace removed the live profile's %s: %v", dirs[0], err)
	}
}
