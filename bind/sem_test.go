package bind

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// semSetExists reports whether SysV semaphore set id is listed in
// /proc/sysvipc/sem.
func semSetExists(t *testing.T, id int) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/sysvipc/sem")
	if err != nil {
		t.Skipf("no /proc/sysvipc/sem: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 && f[1] == strconv.Itoa(id) {
			return true
		}
	}
	return false
}

// assertNoChildProcesses fails if this process has any child left, zombie
// or alive.
func assertNoChildProcesses(t *testing.T) {
	t.Helper()
	var ws unix.WaitStatus
	pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
	if err != unix.ECHILD {
		t.Errorf("a child process is left (wait4: pid %d, %v)", pid, err)
	}
}

func TestSemopMultiCountsAddUp(t *testing.T) {
	for _, c := range []struct {
		threads, sems int
		pin           bool
	}{{1, 1, false}, {3, 2, false}, {4, 1, true}} {
		r, err := SemopMulti(SemopMultiParams{Threads: int32(c.threads), Sems: int32(c.sems), DurationNs: Nanos(150 * time.Millisecond), Pin: BoolOf(c.pin), ReportFD: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.PerThread) != c.threads || r.ThreadsCreated != c.threads {
			t.Fatalf("%+v: %d counts, %d threads created", c, len(r.PerThread), r.ThreadsCreated)
		}
		var sum uint64
		for i, n := range r.PerThread {
			if n%2 != 0 {
				t.Errorf("%+v: thread %d count %d is odd (2 per loop)", c, i, n)
			}
			sum += n
		}
		if sum != r.TotalOps || r.TotalOps == 0 || r.TotalOps%2 != 0 {
			t.Errorf("%+v: total %d, sum of threads %d: want equal, even, positive", c, r.TotalOps, sum)
		}
		if r.ElapsedNs == 0 || r.NominalNs != uint64(150*time.Millisecond) || r.CPUs < 1 {
			t.Errorf("%+v: elapsed %d nominal %d cpus %d", c, r.ElapsedNs, r.NominalNs, r.CPUs)
		}
		if r.SemID < 0 || semSetExists(t, r.SemID) {
			t.Errorf("%+v: set %d not removed", c, r.SemID)
		}
	}
}

func TestSemopMultiInjectedFailures(t *testing.T) {
	_, err := SemopMulti(SemopMultiParams{Threads: 2, Sems: 1, DurationNs: Nanos(time.Millisecond), Inject: InjectSemgetENOSPC, ReportFD: -1})
	var e *Error
	if !errors.As(err, &e) || e.Call != "semget" || !errors.Is(err, syscall.ENOSPC) ||
		!strings.Contains(err.Error(), "SEMMNI") || !strings.Contains(err.Error(), "SEMMNS") {
		t.Errorf("semget ENOSPC: got %v", err)
	}
	r, err := SemopMulti(SemopMultiParams{Threads: 4, Sems: 2, DurationNs: Nanos(time.Hour), Inject: InjectForkEAGAIN, ReportFD: -1})
	if !errors.As(err, &e) || e.Call != "pthread_create" || !errors.Is(err, syscall.EAGAIN) || !strings.Contains(err.Error(), "kernel.threads-max") {
		t.Errorf("pthread_create EAGAIN: got %v", err)
	}
	if r.ThreadsCreated != 2 || r.SemID < 0 || semSetExists(t, r.SemID) {
		t.Errorf("after a failed thread start: %d threads created, set %d must be removed", r.ThreadsCreated, r.SemID)
	}
}

func TestOsimCountsAddUp(t *testing.T) {
	for _, c := range []OsimParams{
		{Sems: 1, Tasks: 1, Loops: 100},
		{Sems: 2, Tasks: 5, Loops: 1001, BusyIn: 10, BusyOut: 20},
		{Sems: 4, Tasks: 8, Loops: 4000},
	} {
		c.ReportFD = -1
		r, err := Osim(c)
		if err != nil {
			t.Fatal(err)
		}
		per := int((c.Loops + c.Tasks - 1) / c.Tasks)
		if r.LoopsPerTask != per || r.TotalLoops != int64(per*int(c.Tasks)) {
			t.Errorf("%+v: %d loops per task, %d in all; want %d, %d", c, r.LoopsPerTask, r.TotalLoops, per, per*int(c.Tasks))
		}
		if r.TasksForked != int(c.Tasks) || r.ElapsedNs == 0 {
			t.Errorf("%+v: forked %d, elapsed %d", c, r.TasksForked, r.ElapsedNs)
		}
		if r.SemID < 0 || semSetExists(t, r.SemID) {
			t.Errorf("%+v: set %d not removed", c, r.SemID)
		}
		assertNoChildProcesses(t)
	}
}

func TestOsimInjectedFailures(t *testing.T) {
	_, err := Osim(OsimParams{Sems: 1, Tasks: 2, Loops: 10, Inject: InjectSemgetENOSPC, ReportFD: -1})
	var e *Error
	if !errors.As(err, &e) || e.Call != "semget" || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "kernel.sem") {
		t.Errorf("semget ENOSPC: got %v", err)
	}
	// Three workers are forked and wait in their first semop when the
	// fourth fork fails: they must be killed and reaped, the set removed.
	r, err := Osim(OsimParams{Sems: 2, Tasks: 6, Loops: 1000, Inject: InjectForkEAGAIN, ReportFD: -1})
	if !errors.As(err, &e) || e.Call != "fork" || !errors.Is(err, syscall.EAGAIN) || !strings.Contains(err.Error(), "ulimit -u") {
		t.Errorf("fork EAGAIN: got %v", err)
	}
	if r.TasksForked != 3 || r.SemID < 0 || semSetExists(t, r.SemID) {
		t.Errorf("after a failed fork: %d forked, set %d must be removed", r.TasksForked, r.SemID)
	}
	assertNoChildProcesses(t)
}

func TestOsimBadParams(t *testing.T) {
	for _, p := range []OsimParams{{Sems: 0, Tasks: 1, Loops: 1}, {Sems: 1, Tasks: 0, Loops: 1}, {Sems: 1, Tasks: 1, Loops: 0}, {Sems: 1, Tasks: 1, Loops: 1, BusyIn: -1}} {
		p.ReportFD = -1
		if _, err := Osim(p); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("%+v: got %v, want EINVAL", p, err)
		}
	}
}

// TestSemKeyTakenNeverAdopted gives both SysV workloads a key another
// program's set already has: they fail with EEXIST naming the key, and
// the foreign set is untouched (no semop, no IPC_RMID).
func TestSemKeyTakenNeverAdopted(t *testing.T) {
	key := 0x0bad1000 | os.Getpid()&0xfff
	const ipcCreat, ipcExcl = 0o1000, 0o2000
	id, _, e := unix.Syscall(unix.SYS_SEMGET, uintptr(key), 3, ipcCreat|ipcExcl|0o600)
	if e != 0 {
		t.Skipf("semget: %v", e)
	}
	defer unix.Syscall6(unix.SYS_SEMCTL, id, 0, 0, 0, 0, 0)
	_, err1 := Osim(OsimParams{Sems: 2, Tasks: 2, Loops: 10, SemKey: int32(key), ReportFD: -1})
	_, err2 := SemopMulti(SemopMultiParams{Threads: 1, Sems: 3, DurationNs: Nanos(time.Millisecond), SemKey: int32(key), ReportFD: -1})
	for _, err := range []error{err1, err2} {
		if !errors.Is(err, syscall.EEXIST) || !strings.Contains(err.Error(), fmt.Sprintf("key %#08x", key)) {
			t.Errorf("got %v, want EEXIST naming key %#x", err, key)
		}
	}
	if !semSetExists(t, int(id)) {
		t.Fatalf("the foreign set %d was removed", id)
	}
	// Untouched: semop was never called on it (otime 0).
	b, _ := os.ReadFile("/proc/sysvipc/sem")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 9 && f[1] == strconv.Itoa(int(id)) && f[8] != "0" {
			t.Errorf("the foreign set was used: %s", line)
		}
	}
	assertNoChildProcesses(t)
}
