package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"contend/internal/results"
)

func TestRepeatAndStaticPlan(t *testing.T) {
	next := StaticPlan(Repeat(3, 2))
	var got []string
	for {
		s, ok := next(&results.File{})
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%v/%d", s.Warmup, s.Round))
	}
	if strings.Join(got, " ") != "true/0 true/0 false/0 false/1 false/2" {
		t.Errorf("plan %v", got)
	}
}

// TestRemoveIPC creates a semaphore set as a dead child would have left
// it, and removes it the way the parent does.
func TestRemoveIPC(t *testing.T) {
	const ipcPrivate, ipcCreat = 0, 0o1000
	id, _, e := unix.Syscall(unix.SYS_SEMGET, ipcPrivate, 1, ipcCreat|0o600)
	if e != 0 {
		t.Skipf("semget: %v", e)
	}
	if err := removeIPC(fmt.Sprintf("sem %d", id)); err != nil {
		t.Fatal(err)
	}
	// Gone: removing it again finds nothing and is not an error.
	if _, _, e := unix.Syscall6(unix.SYS_SEMCTL, id, 0, 0, 0, 0, 0); e != unix.EINVAL && e != unix.EIDRM {
		t.Errorf("set %d still exists (semctl: %v)", id, e)
	}
	if err := removeIPC(fmt.Sprintf("sem %d", id)); err != nil {
		t.Errorf("second removal: %v", err)
	}
	if err := removeIPC("shm 3"); err == nil {
		t.Error("unknown IPC kind accepted")
	}
	if err := removeIPC("sem x"); err == nil {
		t.Error("bad id accepted")
	}
}

func TestDescribeExit(t *testing.T) {
	err := exec.Command("/bin/sh", "-c", "kill -SEGV $$").Run()
	if got := describeExit(err, "line one\nlast words"); !strings.Contains(got, "killed by signal SIGSEGV") || !strings.HasSuffix(got, ": last words") {
		t.Errorf("describeExit = %q", got)
	}
	err = exec.Command("/bin/sh", "-c", "exit 3").Run()
	if got := describeExit(err, ""); got != "the child exited with status 3" {
		t.Errorf("describeExit = %q", got)
	}
	if got := describeExit(errors.New("boom"), ""); got != "boom" {
		t.Errorf("describeExit = %q", got)
	}
}

func TestStaleSetsSparesLiveCreators(t *testing.T) {
	key := SemKey(os.Getpid()) // this process is alive: its set is not stale
	id, _, e := unix.Syscall(unix.SYS_SEMGET, uintptr(key), 1, 0o1000|0o2000|0o600)
	if e != 0 {
		t.Skipf("semget: %v", e)
	}
	defer removeIPC(fmt.Sprintf("sem %d", id))
	sets, err := StaleSets()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if s.ID == int(id) {
			t.Errorf("set %d of a live process listed as stale", id)
		}
	}
	if got, ok := semByKey(key); !ok || got != int(id) {
		t.Errorf("semByKey(%#x) = %d %v, want %d", key, got, ok, id)
	}
}
