package bisect

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/lock"
	"contend/internal/vm"
)

// TestKilledSearchKillsItsBuild: a search SIGKILLed while a build runs
// takes the whole build with it, the processes the build command
// started included (a make -j's compilers), not only the shell.
func TestKilledSearchKillsItsBuild(t *testing.T) {
	if os.Getenv("CONTEND_TEST_BUILD_HELPER") != "" {
		// The search: builds until it is killed.
		c := Commit{Hash: os.Getenv("CONTEND_TEST_BUILD_COMMIT")}
		d := os.Getenv("CONTEND_TEST_BUILD_DIR")
		buildAt(context.Background(), os.Getenv("CONTEND_TEST_BUILD_REPO"), filepath.Join(d, "work"), d,
			`echo $$ >>"$PIDS"; sleep 300 & echo $! >>"$PIDS"; wait`, c, nil)
		os.Exit(0)
	}
	repo, cs := kernelRepo(t, 0, 0)
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledSearchKillsItsBuild$")
	cmd.Env = append(os.Environ(), "CONTEND_TEST_BUILD_HELPER=1", "CONTEND_TEST_BUILD_COMMIT="+cs[0].Hash,
		"CONTEND_TEST_BUILD_DIR="+dir, "CONTEND_TEST_BUILD_REPO="+repo, "PIDS="+pids)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var ps []int
	for deadline := time.Now().Add(30 * time.Second); len(ps) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the build did not start in 30s (pids: %v)", ps)
		}
		b, _ := os.ReadFile(pids)
		ps = ps[:0]
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			ps = append(ps, n)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	var alive []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		alive = alive[:0]
		for _, p := range ps {
			if processAlive(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			return
		}
	}
	for _, p := range alive {
		syscall.Kill(p, syscall.SIGKILL)
	}
	t.Errorf("the build's processes %v (of the shell and its sleep %v) outlived the killed search", alive, ps)
}

// processAlive tells whether pid is a process that has not exited (a
// zombie has).
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestVMProberHoldsTheLock: every guest of bisect --vm runs holding the
// machine-wide benchmark lock, as a --vm campaign's and a host run do,
// so that a search and a campaign, or two searches, do not run at once.
func TestVMProberHoldsTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	t.Setenv("CONTEND_LOCK", path)
	repo, cs := kernelRepo(t, 1, 1)
	f := &fakeGuest{t: t}
	p := vmProber(t, repo, f)
	unlocked := 0
	p.Boot = func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
		if h, held := lock.Current(path); !held || h.Pid != os.Getpid() {
			unlocked++
		}
		return f.Boot(ctx, g, c)
	}
	b, err := p.Build(context.Background(), cs[1])
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Measure(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if f.boots != 2 || unlocked != 0 {
		t.Errorf("%d boots, %d of them without the benchmark lock %s", f.boots, unlocked, path)
	}
}
