package main

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"contend/internal/results"
)

// proc is one line of /proc/PID/stat, the fields the leak tests need.
type proc struct {
	pid, ppid, pgrp int
	state           string
}

// procs lists every process of the machine.
func procs() []proc {
	ents, _ := os.ReadDir("/proc")
	var ps []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		ps = append(ps, proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0]})
	}
	return ps
}

// descendants returns the processes below root in ps.
func descendants(ps []proc, root int) []proc {
	kids := map[int][]proc{}
	for _, p := range ps {
		kids[p.ppid] = append(kids[p.ppid], p)
	}
	var out []proc
	queue := []int{root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, k := range kids[n] {
			out = append(out, k)
			queue = append(queue, k.pid)
		}
	}
	return out
}

// runWatch records every process that appears below a running contend
// process (repetition children and the workers they fork), so that the
// test can check afterwards that none of them, and nothing in their
// process groups, is left.
type runWatch struct {
	root, rootPgrp int
	mu             sync.Mutex
	pids, pgrps    map[int]bool
	stop, done     chan struct{}
}

func watchRun(root int) *runWatch {
	w := &runWatch{root: root, pids: map[int]bool{}, pgrps: map[int]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	for _, p := range procs() {
		if p.pid == root {
			w.rootPgrp = p.pgrp
		}
	}
	go func() {
		defer close(w.done)
		for {
			w.scan()
			select {
			case <-w.stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *runWatch) scan() {
	ps := procs()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range descendants(ps, w.root) {
		w.pids[p.pid] = true
		if p.pgrp != w.rootPgrp {
			w.pgrps[p.pgrp] = true
		}
	}
}

// assertGone stops the watch and fails if a process it saw, or any process
// in the process group of one, still exists (zombies included) a few
// seconds after contend exited.
func (w *runWatch) assertGone(t *testing.T) {
	t.Helper()
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pids) == 0 {
		t.Errorf("the watch saw no repetition child at all")
	}
	var left []string
	for deadline := time.Now().Add(3 * time.Second); ; {
		left = nil
		for _, p := range procs() {
			if !(w.pids[p.pid] || w.pgrps[p.pgrp]) {
				continue
			}
			if p.state == "Z" && p.ppid == os.Getpid() {
				// An orphan of the killed contend, reparented to this
				// test process (a child subreaper through package
				// harness): dead, and ours to reap.
				var ws syscall.WaitStatus
				syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
				continue
			}
			{
				left = append(left, strconv.Itoa(p.pid)+" ("+p.state+", pgrp "+strconv.Itoa(p.pgrp)+")")
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("processes of the run are left: %s (saw %d processes in %d groups)", strings.Join(left, ", "), len(w.pids), len(w.pgrps))
	}
}

// semSet returns the ids listed in /proc/sysvipc/sem as a set.
func semSet(t *testing.T) map[string]bool {
	t.Helper()
	s := map[string]bool{}
	for _, id := range strings.Fields(ipcsSem(t)) {
		s[id] = true
	}
	return s
}

// assertNoNewSems fails if a semaphore set that was not listed in before
// is still listed. Other tests (package bind) may create and remove sets
// at the same time, so a new set gets a few seconds to go away; a leaked
// set never does.
func assertNoNewSems(t *testing.T, before map[string]bool) {
	t.Helper()
	var extra []string
	for deadline := time.Now().Add(3 * time.Second); ; {
		extra = nil
		for id := range semSet(t) {
			if !before[id] {
				extra = append(extra, id)
			}
		}
		if len(extra) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(extra) > 0 {
		var was []string
		for id := range before {
			was = append(was, id)
		}
		sort.Strings(extra)
		sort.Strings(was)
		t.Errorf("semaphore sets leaked: %s (before the run: %q)", strings.Join(extra, " "), strings.Join(was, " "))
	}
}

// waitReps waits until the result file at path holds at least n
// repetitions.
func waitReps(t *testing.T, path string, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if f, err := results.Read(path); err == nil && len(f.Reps) >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s did not reach %d repetitions", path, n)
}

// waitMidRun waits until contend (root) runs a repetition child that has
// created a semaphore set not in before, and, with workers, has forked
// worker processes; it returns the child's pid.
func waitMidRun(t *testing.T, root int, before map[string]bool, workers bool) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		ps := procs()
		child := 0
		for _, p := range ps {
			if p.ppid != root || p.state == "Z" {
				continue
			}
			if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "cmdline")); strings.Contains(string(b), "__child") {
				child = p.pid
			}
		}
		if child == 0 {
			continue
		}
		if workers && len(descendants(ps, child)) == 0 {
			continue
		}
		for id := range semSet(t) {
			if !before[id] {
				return child
			}
		}
	}
	t.Fatalf("no repetition child of %d reached its timed region", root)
	return 0
}

// foreignSet creates a semaphore set under key as another program would
// (mode 0600, the same user) and returns its id; it is removed when the
// test ends. ok is false if the key is taken.
func foreignSet(t *testing.T, key uint32, nsems int) (id int, ok bool) {
	t.Helper()
	const ipcCreat, ipcExcl = 0o1000, 0o2000
	r, _, e := syscall.Syscall(syscall.SYS_SEMGET, uintptr(int32(key)), uintptr(nsems), ipcCreat|ipcExcl|0o600)
	if e == syscall.EEXIST {
		return 0, false
	}
	if e != 0 {
		t.Fatalf("semget of a foreign set with key %#x: %v", key, e)
	}
	t.Cleanup(func() { syscall.Syscall6(syscall.SYS_SEMCTL, r, 0, 0, 0, 0, 0) })
	return int(r), true
}

// plantGuard adds to ids a set that only an older contend's cleanup
// would remove (key 0x63ff0000 | ..., the old scheme's key of a pid above
// any pid_max): such a cleanup, run by another test suite on a shared
// machine, removes every 0x63xxxxxx set of a dead pid, and its work must
// not be taken for this contend's.
func plantGuard(t *testing.T, ids map[int]uint32) {
	t.Helper()
	if id, ok := foreignSet(t, uint32(0x63ff0000|os.Getpid()&0xffff), 1); ok {
		ids[id] = uint32(0x63ff0000 | os.Getpid()&0xffff)
	}
}

// assertSetsExist fails for each id that is no longer listed and that
// this test's contend may have removed. Other test suites on a shared
// machine may run an older contend, which removes 0x63xxxxxx sets: its
// runs the set under the key of their child's pid, its cleanup every such
// set of a dead pid. So a missing 0x63 set is this contend's doing only if
// its pid is one of this run's processes (ours), or if its pid can never
// be alive and the guard set (plantGuard) is still there.
func assertSetsExist(t *testing.T, ids map[int]uint32, ours map[int]bool) {
	t.Helper()
	now := semSet(t)
	b, _ := os.ReadFile("/proc/sys/kernel/pid_max")
	pidMax, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	outsider := false
	for id, key := range ids {
		if key>>16 == 0x63ff && !now[strconv.Itoa(id)] {
			outsider = true
			t.Logf("an older contend's cleanup removed the guard set %d (key %#x): sets of dead pids are not checked", id, key)
		}
	}
	for id, key := range ids {
		if now[strconv.Itoa(id)] {
			continue
		}
		pid := int(key & 0xffffff)
		switch {
		case key>>24 != 0x63, ours[pid]:
			t.Errorf("foreign semaphore set %d (key %#x) was removed", id, key)
		case pidMax > 0 && pid >= pidMax && !outsider:
			t.Errorf("foreign semaphore set %d (key %#x, of a pid that cannot exist) was removed", id, key)
		default:
			t.Logf("foreign semaphore set %d (key %#x) was removed by another program (an older contend on this machine, whose process %d had its key)", id, key, pid)
		}
	}
}
