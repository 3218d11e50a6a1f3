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

// TestCheckTasksCountsWhatExists: a limit binds on what exists now plus the
// run (the old check kept 64 tasks of head room whatever ran), and the
// refusal says how to raise it.
func TestCheckTasksCountsWhatExists(t *testing.T) {
	m := Machine{ThreadsMax: 100000, TasksNow: 99500, PidMax: 4194304, NProc: 5000, UserTasks: 4500}
	err := m.CheckTasks("threads", 600)
	if err == nil || !strings.Contains(err.Error(), "--threads: 600 threads or processes exceed kernel.threads-max = 100000 (99500 tasks counted against it now, 64 kept for contend); accepted: at most 436 here, or raise it: sysctl -w kernel.threads-max=100164") {
		t.Errorf("600 threads with 99500 of 100000 in use: %v", err)
	}
	m.ThreadsMax = 0
	err = m.CheckTasks("tasks", 600)
	if err == nil || !strings.Contains(err.Error(), "RLIMIT_NPROC (ulimit -u) = 5000 (4500 tasks") || !strings.Contains(err.Error(), "at most 436 here, or raise it: ulimit -u 5164") {
		t.Errorf("600 tasks with 4500 of ulimit -u 5000 in use: %v", err)
	}
	if err := m.CheckTasks("tasks", 436); err != nil {
		t.Errorf("436 tasks refused: %v", err)
	}
	if got := m.MaxTasks(); got != 436 {
		t.Errorf("MaxTasks = %d, want 436", got)
	}
	m.Root = true
	if err := m.CheckTasks("tasks", 600); err != nil {
		t.Errorf("root, whom RLIMIT_NPROC does not bind: %v", err)
	}
	m = Machine{PidMax: 32768, TasksNow: 32000}
	if err := m.CheckTasks("threads", 1000); err == nil || !strings.Contains(err.Error(), "sysctl -w kernel.pid_max=33064") {
		t.Errorf("pid_max: %v", err)
	}
	m = Machine{PidsCgroup: 1000, PidsCurrent: 900}
	if err := m.CheckTasks("threads", 100); err == nil || !strings.Contains(err.Error(), "pids.max) = 1000 (900 tasks") {
		t.Errorf("pids cgroup: %v", err)
	}
}

func TestCheckThreads(t *testing.T) {
	m := Machine{MaxMapCount: 65530, MemAvailable: 4 << 30}
	if w, err := m.CheckThreads("threads", 24576, 8<<20); err != nil || w != nil {
		t.Errorf("24576 threads of 8 MiB stacks with 65530 mappings and 4 GiB: %v %v", w, err)
	}
	_, err := m.CheckThreads("threads", 40000, 8<<20)
	if err == nil || !strings.Contains(err.Error(), "--threads: 40000 threads need 81024 mappings") || !strings.Contains(err.Error(), "vm.max_map_count = 65530; accepted: at most 32253 here, or raise it: sysctl -w vm.max_map_count=81024") {
		t.Errorf("40000 threads: %v", err)
	}
	m = Machine{AddressSpace: 1 << 30}
	if _, err := m.CheckThreads("threads", 1000, 8<<20); err == nil || !strings.Contains(err.Error(), "exceed RLIMIT_AS (ulimit -v) = 1GiB; accepted: at most 128 here, or raise it: ulimit -v unlimited") {
		t.Errorf("1000 stacks of 8 MiB under ulimit -v 1 GiB: %v", err)
	}
	m = Machine{Overcommit: 2, CommitLimit: 2 << 30, Committed: 1 << 30}
	if _, err := m.CheckThreads("threads", 200, 8<<20); err == nil || !strings.Contains(err.Error(), "vm.overcommit_memory=2 leaves to commit (CommitLimit - Committed_AS = 1GiB); accepted: at most 128 here") {
		t.Errorf("overcommit 2: %v", err)
	}
	m.Overcommit = 0
	if _, err := m.CheckThreads("threads", 200, 8<<20); err != nil {
		t.Errorf("overcommit 0 counts no stack: %v", err)
	}
	m = Machine{MemAvailable: 64 << 20}
	if _, err := m.CheckThreads("threads", 4096, 8<<20); err == nil || !strings.Contains(err.Error(), "4096 threads need at least 128MiB of memory (32KiB each") || !strings.Contains(err.Error(), "at most 2048 here") {
		t.Errorf("4096 threads in 64 MiB: %v", err)
	}
	m.Force = true
	if w, err := m.CheckThreads("threads", 4096, 8<<20); err != nil || len(w) != 1 || !strings.Contains(w[0], "--force given") {
		t.Errorf("--force: %v %v", w, err)
	}
}

// TestOverrideFakeLimitsCountNothing: a fake task limit counts no task of
// the machine unless told.
func TestOverrideFakeLimitsCountNothing(t *testing.T) {
	m := Machine{TasksNow: 300, UserTasks: 200, PidsCurrent: 50}.Override("threads-max=100,nproc=150,pids-max=90")
	if m.TasksNow != 0 || m.UserTasks != 0 || m.PidsCurrent != 0 {
		t.Errorf("counts %d %d %d, want 0 under fake limits", m.TasksNow, m.UserTasks, m.PidsCurrent)
	}
	m = Machine{}.Override("nproc=200,user-tasks=120,max-map-count=1000,overcommit=2,commit-limit=5,committed=4")
	if m.NProc != 200 || m.UserTasks != 120 || m.MaxMapCount != 1000 || m.Overcommit != 2 || m.CommitLimit != 5 || m.Committed != 4 {
		t.Errorf("Override: %+v", m)
	}
}

// TestReadCountsTasks: Read counts the machine's tasks, and this user's
// when RLIMIT_NPROC binds (at least this process's threads).
func TestReadCountsTasks(t *testing.T) {
	m := Read()
	if m.TasksNow < 1 || m.MaxMapCount < 1 {
		t.Errorf("TasksNow %d, MaxMapCount %d: want both read", m.TasksNow, m.MaxMapCount)
	}
	if n := userTasks(os.Getuid()); n < 2 {
		t.Errorf("userTasks = %d, want at least this test's threads", n)
	}
}
