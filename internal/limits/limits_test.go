package limits

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestThreadStackIsTheStackLimit: the default thread stack Read reports is
// the soft stack limit (ulimit -s) rounded to the page, when that is set
// and above PTHREAD_STACK_MIN; faultme counts its threads' stacks at it.
func TestThreadStackIsTheStackLimit(t *testing.T) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_STACK, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY || rl.Cur < 1<<20 {
		t.Skipf("stack limit %d (%v): no set limit to compare with", rl.Cur, err)
	}
	page := uint64(os.Getpagesize())
	if got, want := Read().ThreadStack, int64((rl.Cur+page-1)/page*page); got != want {
		t.Errorf("ThreadStack = %d, want the stack limit %d", got, want)
	}
}

func TestCheckTasksNamesTheBindingLimit(t *testing.T) {
	m := Machine{ThreadsMax: 1000, PidMax: 32768, NProc: 500}
	if err := m.CheckTasks("threads", 400); err != nil {
		t.Errorf("400 threads refused: %v", err)
	}
	err := m.CheckTasks("threads", 800)
	if err == nil || !strings.Contains(err.Error(), "--threads") || !strings.Contains(err.Error(), "RLIMIT_NPROC") {
		t.Errorf("800 threads with ulimit -u 500: %v", err)
	}
	m.Root = true // RLIMIT_NPROC does not bind root
	err = m.CheckTasks("tasks", 990)
	if err == nil || !strings.Contains(err.Error(), "kernel.threads-max = 1000") || !strings.Contains(err.Error(), "--tasks") {
		t.Errorf("990 tasks with threads-max 1000: %v", err)
	}
	if got := m.MaxTasks(); got != 936 {
		t.Errorf("MaxTasks = %d, want 936", got)
	}
	m.PidsCgroup = 100
	if err := m.CheckTasks("threads", 50); err == nil || !strings.Contains(err.Error(), "pids.max") {
		t.Errorf("pids cgroup of 100: %v", err)
	}
}

func TestCheckSemSet(t *testing.T) {
	m := Machine{SemMSL: 250, SemMNS: 32000, SemMNI: 128, SemSets: 3, SemsInUse: 10}
	if err := m.CheckSemSet("sems", 64, 65); err != nil {
		t.Errorf("64+1 semaphores refused: %v", err)
	}
	if err := m.CheckSemSet("sems", 250, 251); err == nil || !strings.Contains(err.Error(), "SEMMSL = 250") || !strings.Contains(err.Error(), "at most 249") {
		t.Errorf("250+1 with SEMMSL 250: %v", err)
	}
	m.SemSets = 128
	if err := m.CheckSemSet("sems", 1, 2); err == nil || !strings.Contains(err.Error(), "SEMMNI") {
		t.Errorf("no set left: %v", err)
	}
}

func TestOverride(t *testing.T) {
	m := Machine{Root: true}.Override("threads-max=100, semmsl=10,nproc=50,bogus=3,memavailable=x,no-zero-page=1")
	if m.ThreadsMax != 100 || m.SemMSL != 10 || m.NProc != 50 || m.Root || !m.NoZeroPage || m.MemAvailable != 0 {
		t.Errorf("Override = %+v", m)
	}
}

func TestReadThisMachine(t *testing.T) {
	m := Read()
	if m.CPUs < 1 || m.MemTotal <= 0 || m.PidMax <= 0 {
		t.Errorf("Read() = %+v", m)
	}
}

func TestLargestGap(t *testing.T) {
	maps := `00400000-00500000 r-xp 00000000 08:01 1 /bin/x
7f0000000000-7f0000100000 rw-p 00000000 00:00 0
7ffffff00000-7ffffffff000 rw-p 00000000 00:00 0 [stack]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]
`
	if got, want := LargestGap(maps), int64(0x7f0000000000-0x500000); got != want {
		t.Errorf("LargestGap = %#x, want %#x", got, want)
	}
	if got := LargestGap(""); got != 0 {
		t.Errorf("LargestGap of nothing = %d, want 0 (unknown)", got)
	}
	if g := Read().AddressGap; g <= 0 || g > UserSpace/2 {
		t.Errorf("this process's largest gap %d is not inside the user address space", g)
	}
}

func TestCheckedReadsFakeLimits(t *testing.T) {
	t.Setenv("CONTEND_FAKE_LIMITS", "threads-max=100,semmsl=10")
	m := Checked()
	if m.ThreadsMax != 100 || m.SemMSL != 10 {
		t.Errorf("Checked with CONTEND_FAKE_LIMITS: threads-max %d, semmsl %d; want 100, 10", m.ThreadsMax, m.SemMSL)
	}
	t.Setenv("CONTEND_FAKE_LIMITS", "")
	if got, want := Checked().ThreadsMax, Read().ThreadsMax; got != want {
		t.Errorf("Checked without CONTEND_FAKE_LIMITS: threads-max %d, Read's %d", got, want)
	}
}
