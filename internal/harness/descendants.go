package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A repetition's processes that left its process group (setsid, a daemon's
// double fork) are not killed by the group kill. contend is a child
// subreaper, so such a process stays below contend whatever its parents
// do: once its parent dies it is reparented to contend itself. Spawn takes
// the list of contend's descendants just before the child starts (before)
// and, after the group kill, kills and reaps every descendant that is not
// on that list, not below a process on it, and not the child of another
// Spawn running at the same time (tests). What is killed is exactly that:
// the processes created during the repetition below contend. What escapes:
// a process handed to another reaper (systemd-run, a service started
// through a daemon's socket), which is no longer contend's descendant.

// procID names one process for the walk: its pid and start time (field 22
// of /proc/PID/stat), so that a reused pid is not taken for the process.
type procID struct {
	pid   int
	start uint64
}

// active lists the pids of the children of the Spawns now running, which
// another Spawn's sweep leaves alone (with their descendants).
var active struct {
	mu   sync.Mutex
	pids map[int]bool
}

func setActive(pid int, on bool) {
	active.mu.Lock()
	defer active.mu.Unlock()
	if active.pids == nil {
		active.pids = map[int]bool{}
	}
	if on {
		active.pids[pid] = true
	} else {
		delete(active.pids, pid)
	}
}

func isActive(pid int) bool {
	active.mu.Lock()
	defer active.mu.Unlock()
	return active.pids[pid]
}

// children returns the children of process pid: from
// /proc/PID/task/*/children (a child's parent is the thread that forked
// it), or, without CONFIG_PROC_CHILDREN, from the parent field of every
// /proc/*/stat.
func children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if len(tasks) == 0 {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			return childrenByScan(pid)
		}
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// childrenByScan finds the children of pid in every /proc/*/stat.
func childrenByScan(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(c); ok && ppid == pid {
			out = append(out, c)
		}
	}
	return out
}

// procStat returns the parent and the start time of process pid.
func procStat(pid int) (ppid int, start uint64, ok bool) {
	ppid, start, _, ok = procState(pid)
	return ppid, start, ok
}

// procState returns the parent, the start time and the state of process
// pid.
func procState(pid int) (ppid int, start uint64, state string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	start, _ = strconv.ParseUint(f[19], 10, 64)
	return ppid, start, f[0], true
}

// descendants lists this process's descendants now (zombies included),
// parents before their children; below a process for which skip is true
// nothing is listed, nor the process itself.
func descendants(skip func(procID) bool) []procID {
	var out []procID
	queue := []int{os.Getpid()}
	seen := map[int]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children(p) {
			if seen[c] {
				continue
			}
			seen[c] = true
			_, start, ok := procStat(c)
			if !ok {
				continue // gone meanwhile
			}
			id := procID{c, start}
			if skip != nil && skip(id) {
				continue
			}
			out = append(out, id)
			queue = append(queue, c)
		}
	}
	return out
}

// snapshot is the set of this process's descendants before a repetition.
type snapshot map[procID]bool

func takeSnapshot() snapshot {
	s := snapshot{}
	for _, id := range descendants(nil) {
		s[id] = true
	}
	return s
}

// leftovers lists the processes below contend that the repetition made:
// not in before, not below a process in before, not another Spawn's child.
func (before snapshot) leftovers() []procID {
	return descendants(func(id procID) bool { return before[id] || isActive(id.pid) })
}

// killLeftovers SIGKILLs the processes of the repetition that outlived its
// process group (see leftovers) until none is left, reaping those that are
// contend's children, for at most the deadline; it returns the pids it
// killed (sorted; not those already dead) and those still there at the
// deadline.
func (before snapshot) killLeftovers(deadline time.Duration) (killed, left []int) {
	self := os.Getpid()
	done := map[int]bool{}
	end := time.Now().Add(deadline)
	for {
		procs := before.leftovers()
		left = left[:0]
		for _, id := range procs {
			ppid, start, state, ok := procState(id.pid)
			if !ok || start != id.start {
				continue
			}
			if state == "Z" || state == "X" {
				done[id.pid] = true // dead: to be reaped, not killed
			}
			if ppid == self {
				var ws unix.WaitStatus
				if p, _ := unix.Wait4(id.pid, &ws, unix.WNOHANG, nil); p == id.pid {
					done[id.pid] = true
					continue // a zombie of ours, now reaped
				}
			}
			signal(id)
			if !done[id.pid] {
				killed = append(killed, id.pid)
				done[id.pid] = true
			}
			left = append(left, id.pid)
		}
		if len(left) == 0 || time.Now().After(end) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	sort.Ints(killed)
	return killed, left
}

// signal SIGKILLs the process id names, through a pidfd checked against
// the start time where the kernel has pidfds (so a reused pid is never
// hit), else by pid.
func signal(id procID) {
	fd, err := unix.PidfdOpen(id.pid, 0)
	if err != nil {
		if err == unix.ENOSYS {
			unix.Kill(id.pid, unix.SIGKILL)
		}
		return // gone
	}
	defer unix.Close(fd)
	if _, start, ok := procStat(id.pid); ok && start == id.start {
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
}

// joinInts writes pids as "1, 2, 3".
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
