package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"contend/internal/ipcown"
	"contend/internal/results"
)

// proc is one line of /proc/PID/stat, the fields the leak tests need.
type proc struct {
	pid, ppid, pgrp, sid int
	state                string
	start                uint64 // starttime (clock ticks after boot): a pid is reused, this pair is not
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
		if len(f) < 20 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		sid, _ := strconv.Atoi(f[3])
		start, _ := strconv.ParseUint(f[19], 10, 64)
		ps = append(ps, proc{pid: pid, ppid: ppid, pgrp: pgrp, sid: sid, state: f[0], start: start})
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
// process groups, is left. A watch polls: under load it may miss a
// short-lived child altogether. A contend started in a session of its own
// (startInSession) needs no luck: every process of the run is in that
// session unless it made one itself, so assertGone finds whatever is left
// of it whether the watch saw it or not.
type runWatch struct {
	root, rootPgrp int
	sid            int // the run's session (root leads it), or 0
	mu             sync.Mutex
	pids, pgrps    map[int]bool
	starts         map[int]uint64 // pid -> start time of the process seen
	stop, done     chan struct{}
}

// startInSession makes cmd, not yet started, the leader of a new
// session: see runWatch.
func startInSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

func watchRun(root int) *runWatch {
	w := &runWatch{root: root, pids: map[int]bool{}, pgrps: map[int]bool{}, starts: map[int]uint64{}, stop: make(chan struct{}), done: make(chan struct{})}
	for _, p := range procs() {
		if p.pid == root {
			w.rootPgrp = p.pgrp
			if p.sid == root {
				w.sid = root
			}
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
		w.starts[p.pid] = p.start
		if p.pgrp != w.rootPgrp {
			w.pgrps[p.pgrp] = true
		}
	}
}

// assertGone stops the watch and fails if a process it saw, or any process
// in the process group of one, or in the run's session, still exists
// (zombies included) a few seconds after contend exited. A watch without
// a session must have seen a repetition child, or it shows nothing.
func (w *runWatch) assertGone(t *testing.T) {
	t.Helper()
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pids) == 0 && w.sid == 0 {
		t.Errorf("the watch saw no repetition child at all")
	}
	var left []string
	for deadline := time.Now().Add(3 * time.Second); ; {
		left = nil
		for _, p := range procs() {
			// A pid seen is the process seen only with its start time:
			// on a busy machine pids are reused within seconds.
			seen := w.pids[p.pid] && w.starts[p.pid] == p.start
			if !(seen || w.pgrps[p.pgrp] || w.sid != 0 && p.sid == w.sid) {
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

// semIDs returns the ids listed in /proc/sysvipc/sem as a set.
func semIDs(t *testing.T) map[string]bool {
	t.Helper()
	s := map[string]bool{}
	for _, id := range strings.Fields(ipcsSem(t)) {
		s[id] = true
	}
	return s
}

// semWatch tells the SysV semaphore sets a test's own runs could have
// made from those of anything else on the machine (other test suites,
// other contends, the runs of other tests of this process running beside
// it): the sets listed before the runs, and the keys that the runs'
// contend processes journaled (internal/ipcown: the entry PID-KEY.json is
// written before the child makes its set under KEY), seen with inotify
// on the journal directory. Whose run an entry was is told against the
// watch's roots: this test process unless the test named others with
// under (its own contend: a trial of TestFaultInjection, which runs
// beside other tests of this process that make sets, names its contend,
// so that their sets in flight are not its leaks). An entry belongs to a
// root if its writer is the root or a descendant of it (journaled.under):
// told from /proc when the watch reads the entry's event, with start
// times (a reused pid is not the root), else from the ancestors the
// entry recorded; an entry that cannot tell (its writer gone and the
// entry removed, torn, of an older contend) counts as the root's, so
// that a leak is never missed. If the inotify queue overflowed, every
// new set counts.
type semWatch struct {
	before   map[int]bool // set ids listed at the start
	dir      string       // the journal directory
	fd       *os.File     // the inotify instance
	mu       sync.Mutex
	roots    []procRef             // named with under; none: this process
	seen     map[int32][]journaled // the entries read, by key
	overflow bool
	done     chan struct{}
}

// semSet starts watching the semaphore sets of this test's runs (see
// semWatch), until the test ends.
func semSet(t *testing.T) *semWatch {
	t.Helper()
	ipcsSem(t) // skips without /proc/sysvipc/sem
	dir, err := ipcown.Dir()
	if err != nil {
		t.Fatalf("the IPC journal directory: %v", err)
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO); err != nil {
		unix.Close(fd)
		t.Fatalf("inotify on %s: %v", dir, err)
	}
	w := &semWatch{before: map[int]bool{}, dir: dir, fd: os.NewFile(uintptr(fd), "inotify"), seen: map[int32][]journaled{}, done: make(chan struct{})}
	sets, err := ipcown.Sets()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		w.before[s.ID] = true
	}
	go w.read()
	t.Cleanup(func() { w.fd.Close(); <-w.done })
	return w
}

// under scopes the watch to process pid, a contend the test started
// after semSet, and its descendants: from then on the watch's sets (ours
// with 0, leaked, assertNoNewSems) are those whose key that process or a
// descendant of it journaled, the entries read before the call included.
// pid must still exist (running, or a zombie not yet reaped: call it
// right after the start): its start time is read now, and the process is
// known by the pair from then on, after it is reaped and its pid is
// reused too. Called again, it adds a root.
func (w *semWatch) under(t *testing.T, pid int) {
	t.Helper()
	r := procRefOf(pid)
	if r.start == 0 {
		t.Fatalf("the watch's root %d does not exist", pid)
	}
	w.mu.Lock()
	w.roots = append(w.roots, r)
	w.mu.Unlock()
}

// read records the journal entries created while the watch runs.
func (w *semWatch) read() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := w.fd.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.mu.Lock()
				w.overflow = true
				w.mu.Unlock()
				continue
			}
			pid, key, ok := journalName(name)
			if !ok {
				continue
			}
			j := observe(pid, filepath.Join(w.dir, name))
			w.mu.Lock()
			w.seen[key] = append(w.seen[key], j)
			w.mu.Unlock()
		}
	}
}

// journalName parses the name of a journal entry, PID-KEY.json (KEY in
// 8 hex digits).
func journalName(name string) (pid int, key int32, ok bool) {
	base, isJSON := strings.CutSuffix(name, ".json")
	p, k, cut := strings.Cut(base, "-")
	if !isJSON || !cut {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(p)
	u, err2 := strconv.ParseUint(k, 16, 32)
	return pid, int32(uint32(u)), err1 == nil && err2 == nil
}

// procRef names one process: a pid is reused, the pid with the start
// time (clock ticks after boot, /proc/PID/stat) is not.
type procRef struct {
	pid   int
	start uint64 // 0: not known
}

// procRefOf returns pid with its start time from /proc, 0 when it is
// gone.
func procRefOf(pid int) procRef {
	p, _ := procStat(pid)
	return procRef{pid: pid, start: p.start}
}

// is tells whether r and o are the same process: the same pid, and the
// same start unless one is not known.
func (r procRef) is(o procRef) bool {
	return r.pid == o.pid && (r.start == 0 || o.start == 0 || r.start == o.start)
}

func (r procRef) String() string {
	if r.pid == os.Getpid() {
		return "this process"
	}
	return "pid " + strconv.Itoa(r.pid)
}

// journaled is what a semWatch learned of one journal entry when it read
// its event, the writer possibly gone already: enough to tell afterwards
// whether the writer was a given root or a descendant of it (under),
// whatever became of the processes since.
type journaled struct {
	writer procRef   // the entry's pid; its start from /proc, else from the entry
	alive  bool      // the writer lived when the event was read
	line   []procRef // its ancestors in /proc then (alive only)
	whole  bool      // line reached the top (init, or a process without a parent)
	entry  *ipcown.Entry
	note   string // how the writer was found ("" alive, with a whole line), and why the entry is not used
}

// observe reads the entry at path, of process pid, and pid's line of
// ancestors from /proc (journaled).
func observe(pid int, path string) journaled {
	j := journaled{writer: procRef{pid: pid}}
	var entryNote string
	e, err := ipcown.ReadEntry(path)
	switch {
	case err != nil:
		entryNote = fmt.Sprintf("its entry unreadable (%v)", err)
	case e.PID != pid:
		entryNote = fmt.Sprintf("its entry names pid %d", e.PID)
	default:
		j.entry = &e
	}
	j.writer.start, j.line, j.whole = liveLine(pid)
	j.alive = j.writer.start != 0
	switch {
	case j.alive && j.entry != nil && j.entry.Start != 0 && j.entry.Start != j.writer.start:
		j.alive, j.line, j.whole = false, nil, false
		j.note = "gone, its pid another process's now"
	case !j.alive:
		j.note = "gone"
	case !j.whole:
		j.note = "its line of parents broke in /proc"
	}
	if !j.alive && j.entry != nil {
		j.writer.start = j.entry.Start
	}
	if entryNote != "" {
		j.note = strings.TrimPrefix(j.note+", "+entryNote, ", ")
	}
	return j
}

// liveLine returns the start time of process pid (0 when it is gone) and
// its ancestors in /proc with their start times, and whether the line
// reached the top (ipcown.Line).
func liveLine(pid int) (start uint64, line []procRef, whole bool) {
	start, ps, whole := ipcown.Line(pid)
	for _, p := range ps {
		line = append(line, procRef{pid: p.PID, start: p.Start})
	}
	return start, line, whole
}

// under tells whether the entry's writer was process r or a descendant
// of it, and how that was told: by /proc when the event was read (start
// times compared: a reused pid is another process); else, or besides (a
// descendant reparented to a subreaper after it journaled), by the
// ancestors the entry recorded, which name r's pid only: a writer that
// started before r cannot be r's (that pid was an older process's). So
// only an entry whose writer was gone when it was read, started after r,
// and names r's pid can be wrongly r's: r's pid reused, after r was
// reaped, by an ancestor of that writer (erring towards a leak reported,
// never one missed). Not r's only when a whole line (/proc's or the
// entry's) leaves r out; an entry that cannot tell counts as r's, so
// that a leak is never missed.
func (j journaled) under(r procRef) (ours bool, why string) {
	state := j.note
	if state == "" {
		state = "alive"
	}
	if j.writer.is(r) {
		return true, fmt.Sprintf("%s itself (%s)", r, state)
	}
	for _, a := range j.line {
		if a.is(r) {
			return true, fmt.Sprintf("%s, a descendant of %s", state, r)
		}
	}
	e := j.entry
	if e != nil && slices.Contains(e.Ancestors, r.pid) && (j.writer.start == 0 || r.start == 0 || j.writer.start >= r.start) {
		return true, fmt.Sprintf("%s, a descendant of %s by its entry (ancestors %v)", state, r, e.Ancestors)
	}
	switch {
	case j.alive && j.whole:
		return false, fmt.Sprintf("a live process outside %s's tree", r)
	case e != nil && len(e.Ancestors) > 0 && e.Ancestors[len(e.Ancestors)-1] == 1:
		return false, fmt.Sprintf("%s, not a descendant of %s by its entry (ancestors %v)", state, r, e.Ancestors)
	case e != nil:
		return true, fmt.Sprintf("%s, its entry cannot tell (ancestors %v): counted as %s's", state, e.Ancestors, r)
	}
	return true, fmt.Sprintf("%s: counted as %s's", state, r)
}

// procStat reads /proc/PID/stat.
func procStat(pid int) (proc, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return proc{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0], start: start}, true
}

// scope returns the roots a set is judged by: process pid (0: the
// watch's roots, this process without any). w.mu is held.
func (w *semWatch) scope(pid int) []procRef {
	switch {
	case pid != 0:
		for _, r := range w.roots {
			if r.pid == pid {
				return []procRef{r}
			}
		}
		return []procRef{procRefOf(pid)}
	case len(w.roots) > 0:
		return w.roots
	}
	return []procRef{procRefOf(os.Getpid())}
}

// owner tells whether key was journaled by one of roots (or a
// descendant), by which pid and how that was told; seen is false for a
// key the watch read no entry of. w.mu is held.
func (w *semWatch) owner(key int32, roots []procRef) (pid int, why string, ours, seen bool) {
	for _, j := range w.seen[key] {
		for _, r := range roots {
			if ours, why := j.under(r); ours {
				return j.writer.pid, why, true, true
			} else if !seen {
				pid, seen = j.writer.pid, true
			}
		}
	}
	return pid, "", false, seen
}

// ours lists the sets that exist now, were not listed at the start and
// are under a key journaled by a process of the watch's roots (with pid:
// by process pid or a descendant of it). After an inotify overflow every
// new set counts for the watch's roots.
func (w *semWatch) ours(t *testing.T, pid int) []ipcown.Set {
	t.Helper()
	sets, err := ipcown.Sets()
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	roots := w.scope(pid)
	var out []ipcown.Set
	for _, s := range sets {
		if w.before[s.ID] {
			continue
		}
		if _, _, mine, _ := w.owner(s.Key, roots); mine || w.overflow && pid == 0 && s.Key != 0 {
			out = append(out, s)
		}
	}
	return out
}

// leaked lists the sets of the watch's runs still there after a few
// seconds (a run's set goes away with its repetition; a leaked one never
// does).
func (w *semWatch) leaked(t *testing.T) []ipcown.Set {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := w.ours(t, 0)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
	}
}

// assertNoNewSems fails if a semaphore set of the watch's runs (see
// semWatch) is left. Sets of other programs on the machine, and of the
// runs of other tests when the watch names its roots, which may come and
// go at the same time, are not looked at.
func assertNoNewSems(t *testing.T, w *semWatch) {
	t.Helper()
	left := w.leaked(t)
	if len(left) == 0 {
		return
	}
	var ids []string
	w.mu.Lock()
	roots := w.scope(0)
	for _, s := range left {
		if pid, why, ours, _ := w.owner(s.Key, roots); ours {
			ids = append(ids, fmt.Sprintf("%d (key %#x, journaled by pid %d: %s)", s.ID, uint32(s.Key), pid, why))
		} else {
			ids = append(ids, fmt.Sprintf("%d (key %#x, no entry of its runs seen)", s.ID, uint32(s.Key)))
		}
	}
	overflow := w.overflow
	w.mu.Unlock()
	sort.Strings(ids)
	if overflow {
		t.Logf("the inotify queue of the journal directory overflowed: every new set was counted")
	}
	t.Errorf("semaphore sets leaked: %s", strings.Join(ids, ", "))
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
// created its semaphore set (under a key root journaled: see semWatch)
// and, with workers, has forked worker processes; it returns the child's
// pid.
func waitMidRun(t *testing.T, root int, sems *semWatch, workers bool) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		ps := procs()
		child := 0
		for _, p := range ps {
			if p.ppid != root || p.state == "Z" {
				continue
			}
			if isRepChild(p.pid) {
				child = p.pid
			}
		}
		if child == 0 {
			continue
		}
		if workers && len(descendants(ps, child)) == 0 {
			continue
		}
		if len(sems.ours(t, root)) > 0 {
			return child
		}
	}
	t.Fatalf("no repetition child of %d reached its timed region", root)
	return 0
}

// freezeMidRun waits for a repetition child of root in its run (as
// waitMidRun) and stops it (SIGSTOP): from then on the repetition cannot
// end by itself, however loaded the machine, so that what the test does
// next (a SIGKILL of the child, a SIGINT of contend) lands in its middle.
// A child that ended before the stop took hold is passed over for the
// next repetition's. It returns the stopped child.
func freezeMidRun(t *testing.T, root int, sems *semWatch, workers bool) int {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		child := waitMidRun(t, root, sems, workers)
		if syscall.Kill(child, syscall.SIGSTOP) != nil {
			continue
		}
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
			p, ok := procOf(child)
			if !ok || p.state == "Z" || p.state == "X" {
				break
			}
			if p.state == "T" {
				return child
			}
		}
	}
	t.Fatalf("no repetition child of %d could be stopped in its run", root)
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
	now := semIDs(t)
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
