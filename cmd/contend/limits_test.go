package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"contend/internal/cpuset"
	"contend/internal/ipcown"
	"contend/internal/results"
)

// holdThreads starts n threads that wait, says "ready" and returns once
// stdin closes: tasks of a user that count against its RLIMIT_NPROC.
func holdThreads(arg string) int {
	n, _ := strconv.Atoi(arg)
	started := make(chan bool)
	for range n {
		go func() {
			runtime.LockOSThread()
			started <- true
			select {}
		}()
	}
	for range n {
		<-started
	}
	os.Stdout.WriteString("ready\n")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// TestNprocRefusedBeforeTheRun runs contend as a user who already has
// 150 tasks, under RLIMIT_NPROC = those + 100 (prlimit), asking for 150
// mutex threads: refused before anything runs, in one line naming
// RLIMIT_NPROC, what exists and how to raise it, exit 2. The check kept
// 64 tasks of head room whatever existed: it let the run start, and
// pthread_create failed with EAGAIN in the middle of it.
func TestNprocRefusedBeforeTheRun(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit")
	}
	// RLIMIT_NPROC does not bind root: the children run as nobody.
	var cred *syscall.Credential
	uid := os.Getuid()
	if uid == 0 {
		uid = 65534
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	dir, err := os.MkdirTemp("", "contend-nproc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	exe, _ := os.Executable()
	bin := filepath.Join(dir, "contend")
	b, err := os.ReadFile(exe)
	if err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Fatal("copying the test binary:", err)
	}
	os.Mkdir(filepath.Join(dir, "ipc"), 0o777)
	os.Chmod(filepath.Join(dir, "ipc"), 0o777)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CONTEND_LOCK=off", ipcown.DirEnv + "=" + filepath.Join(dir, "ipc")}

	hold := exec.Command(bin)
	hold.Env = append(env, "CONTEND_TEST_HOLD_THREADS=150")
	hold.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	in, _ := hold.StdinPipe()
	out, _ := hold.StdoutPipe()
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); hold.Process.Kill(); hold.Wait() })
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "ready\n" {
		t.Fatalf("the holder of threads said %q", l)
	}
	st, _ := os.ReadFile("/proc/" + strconv.Itoa(hold.Process.Pid) + "/status")
	held := 0
	for _, l := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			held, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if held < 150 {
		t.Fatalf("the holder has %d threads, want 150 and more", held)
	}
	nproc := strconv.Itoa(held + 100)
	run := exec.Command(prlimit, "--nproc="+nproc, "--", bin, "run", "mutex", "--threads", "150", "--locks", "100", "-n", "1", "--out", filepath.Join(dir, "r.json"))
	run.Env = append(env, "CONTEND_TEST_AS_MAIN=1")
	run.Dir = dir
	run.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	var stderr strings.Builder
	run.Stderr = &stderr
	err = run.Run()
	code := run.ProcessState.ExitCode()
	want := "--threads: 150 threads or processes exceed RLIMIT_NPROC (ulimit -u) = " + nproc + " ("
	if code != 2 || !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "or raise it: ulimit -u") {
		t.Errorf("150 threads with %d tasks of the user under ulimit -u %s: exit %d (%v), stderr:\n%s\nwant exit 2 and %q", held, nproc, code, err, stderr.String(), want)
	}
	t.Logf("exit %d: %s", code, stderr.String())
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Error("a refused run left a result file")
	}
}

// TestRunUnderTaskset runs faultme with 2 threads restricted to one CPU
// (taskset -c): the result file records the machine's online CPUs and the
// one allowed CPU apart, and the run is warned of its oversubscription
// over the CPU it may use. cpu.online was runtime.NumCPU, 1 here.
func TestRunUnderTaskset(t *testing.T) {
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("no taskset")
	}
	allowed, err1 := cpuset.Affinity(0)
	online, err2 := cpuset.Online("/")
	if err1 != nil || err2 != nil {
		t.Skip("CPUs unreadable:", err1, err2)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	one := strconv.Itoa(allowed[0])
	exe, _ := os.Executable()
	cmd := exec.Command(taskset, "-c", one, exe, "run", "faultme", "--threads", "2", "--mem", "1MiB", "-n", "1", "--out", out)
	cmd.Env = append(os.Environ(), "CONTEND_TEST_AS_MAIN=1")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("taskset -c %s contend run: %v\n%s", one, err, b)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"cpu.online": strconv.Itoa(len(online)), "cpu.affinity": "1", "cpu.affinity_list": one} {
		if f.Env[k] != want {
			t.Errorf("%s = %q, want %q", k, f.Env[k], want)
		}
	}
	want := "2 threads on 1 online CPU:"
	if len(online) > 1 {
		want = "2 threads on 1 CPU this run may use (affinity " + one + " of " + strconv.Itoa(len(online)) + " online)"
	}
	if !strings.Contains(string(b), want) || !slices.ContainsFunc(f.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
		t.Errorf("the run's output and file lack the warning %q:\n%s\nfile: %q", want, b, f.Warnings)
	}
}
