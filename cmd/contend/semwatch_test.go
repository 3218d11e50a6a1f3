package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/ipcown"
)

// goneWriter is a pid no process can have (above any pid_max): the
// writer of an entry that exited before semWatch read its event.
const goneWriter = 0x3fffff00

// putJournal writes e into dir under its journal name, as ipcown.Begin
// does, complete before the name appears (a rename: the watch never
// reads it half written, which a real writer that is gone cannot
// leave either); removed when the test ends.
func putJournal(t *testing.T, dir string, e ipcown.Entry) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("%d-%08x.json", e.PID, uint32(e.Key)))
	b, _ := json.Marshal(e)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	return p
}

// TestSemWatchGoneWriters: semWatch's decision (journaled.under) for the
// entry of a process that is gone when its event is read goes by the
// ancestors the entry recorded: another process's (a sibling of this
// test process, such as another package's test binary under go test)
// is foreign, a descendant's (a contend of this test that exited) is
// this test's, and an entry that cannot tell counts as this test's, so
// that no leak is missed. A live writer is still told from /proc. Then,
// through the watch itself: a set under the key of the gone foreign
// writer is not reported as a leak, one under the key of the gone
// descendant is (the flake: "semaphore sets leaked: ... journaled by
// pid N" for a set of another package's test).
func TestSemWatchGoneWriters(t *testing.T) {
	self := os.Getpid()
	if self == 1 {
		t.Skip("this test process is init: every process descends from it")
	}
	if _, ok := procStat(goneWriter); ok {
		t.Skipf("pid %d exists", goneWriter)
	}
	// A sibling's line (another child of this process's parent), and a
	// line of this process's own that reaches init.
	line := ipcown.Ancestors(self)
	if len(line) == 0 || line[len(line)-1] != 1 {
		t.Skipf("this process's ancestors %v do not reach init", line)
	}
	sibling := line
	me := procRefOf(self)
	descendant := append([]int{goneWriter + 1, self}, line...) // a contend of this test, under a parent that exited too
	entry := func(key int32, ancestors []int) ipcown.Entry {
		return ipcown.Entry{PID: goneWriter, Boot: ipcown.BootID(), Key: key, NSems: 1, UID: os.Geteuid(),
			Time: time.Now().Unix(), IPCNS: ipcown.IPCNS(), Ancestors: ancestors}
	}
	dir := t.TempDir()
	older := filepath.Join(dir, fmt.Sprintf("%d-0c5e0004.json", goneWriter))
	if err := os.WriteFile(older, []byte(fmt.Sprintf(`{"pid":%d,"start":5,"boot":"b","key":207486980,"nsems":1,"uid":%d,"time":1}`+"\n", goneWriter, os.Geteuid())), 0o600); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(dir, fmt.Sprintf("%d-0c5e0005.json", goneWriter))
	if err := os.WriteFile(torn, []byte(`{"pid":`), 0o600); err != nil {
		t.Fatal(err)
	}
	other := entry(0x0c5e0007, sibling)
	other.PID = goneWriter + 2
	misnamed := filepath.Join(dir, fmt.Sprintf("%d-0c5e0007.json", goneWriter))
	b, _ := json.Marshal(other)
	if err := os.WriteFile(misnamed, b, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, fmt.Sprintf("%d-0c5e0008.json", goneWriter))
	if err := os.Symlink(putJournal(t, dir, entry(0x0c5e0009, sibling)), link); err != nil { // followed, it would say foreign
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		path string
		ours bool
	}{
		{"gone, a sibling's line", putJournal(t, dir, entry(0x0c5e0001, sibling)), false},
		{"gone, a line elsewhere", putJournal(t, dir, entry(0x0c5e000a, []int{4242, 17, 1})), false},
		{"gone, a descendant's line", putJournal(t, dir, entry(0x0c5e0002, descendant)), true},
		{"gone, a line cut short", putJournal(t, dir, entry(0x0c5e0003, []int{4242, 17})), true},
		{"gone, an older contend's entry", older, true},
		{"gone, a torn entry", torn, true},
		{"gone, the entry removed already", filepath.Join(dir, fmt.Sprintf("%d-0c5e0006.json", goneWriter)), true},
		{"gone, the entry of another pid", misnamed, true},
		{"gone, a link at the entry's name", link, true},
	} {
		ours, why := observe(goneWriter, c.path).under(me)
		if ours != c.ours || why == "" {
			t.Errorf("%s: under = %v (%s), want %v", c.name, ours, why, c.ours)
		}
	}
	// Live writers: /proc tells, whatever an entry says.
	sibl := putJournal(t, dir, entry(0x0c5e000b, sibling))
	if ours, why := observe(self, sibl).under(me); !ours {
		t.Errorf("this process: under = false (%s)", why)
	}
	if ours, why := observe(1, putJournal(t, dir, entry(0x0c5e000c, descendant))).under(me); ours {
		t.Errorf("init, alive: under = true (%s)", why)
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	if ours, why := observe(child.Process.Pid, sibl).under(me); !ours {
		t.Errorf("a live child: under = false (%s)", why)
	}

	// Through the watch: the entries appear in the journal directory
	// while it runs, then sets under their keys.
	w := semSet(t)
	jdir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}
	k, ids := randomSets(t, 2)
	foreignKey, ourKey, foreignID, ourID := k[0], k[1], ids[0], ids[1]
	putJournal(t, jdir, entry(foreignKey, sibling))
	putJournal(t, jdir, entry(ourKey, descendant))
	waitSeen(t, w, foreignKey, ourKey)
	w.mu.Lock()
	if w.overflow {
		w.mu.Unlock()
		t.Skip("the inotify queue overflowed: every new set counts")
	}
	_, why, _, _ := w.owner(ourKey, w.scope(0))
	w.mu.Unlock()
	var got []int
	for _, s := range w.ours(t, 0) {
		got = append(got, s.ID)
	}
	if !slices.Contains(got, ourID) || slices.Contains(got, foreignID) {
		t.Errorf("sets of this test's runs %v: want %d (the gone descendant's) and not %d (the gone sibling's)", got, ourID, foreignID)
	}
	if !strings.Contains(why, "a descendant of this process by its entry") {
		t.Errorf("why the gone descendant's key is this test's: %q", why)
	}
	// The leak check passes once the descendant's set is gone, with the
	// sibling's set still there.
	if err := ipcown.Remove(ourID); err != nil {
		t.Fatal(err)
	}
	assertNoNewSems(t, w)
}

// randomSets makes n sets of one semaphore under random free keys, as
// another program would (foreignSet), and returns the keys and ids.
func randomSets(t *testing.T, n int) (keys []int32, ids []int) {
	t.Helper()
	for i := 0; i < 100*n && len(keys) < n; i++ {
		k := int32(rand.Uint32()&0x00ffffff | 0x0c000000)
		if id, ok := foreignSet(t, uint32(k), 1); ok {
			keys, ids = append(keys, k), append(ids, id)
		}
	}
	if len(keys) < n {
		t.Fatalf("no %d free keys", n)
	}
	return keys, ids
}

// waitSeen waits until the watch has read an entry under each of keys.
func waitSeen(t *testing.T, w *semWatch, keys ...int32) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		w.mu.Lock()
		n := 0
		for _, k := range keys {
			if len(w.seen[k]) > 0 {
				n++
			}
		}
		w.mu.Unlock()
		if n == len(keys) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch read entries under %d of the keys %#x", n, keys)
		}
	}
}

// setIDs lists the ids of sets.
func setIDs(sets []ipcown.Set) []int {
	var ids []int
	for _, s := range sets {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestSemWatchUnderRoot: a watch scoped to a run's root (under, as a
// fault trial names its contend) counts a set journaled by a live
// descendant of the root, and not one journaled by a live process that
// descends from this test process but not from the root (the run of
// another test beside it: the flake "semaphore sets leaked: ...
// journaled by pid N" on a faultme trial, which makes no set); the
// whole-process scope counts both. The decisions stand once the writers
// and the root are gone (they were taken from what the watch read, with
// start times), and the leak check passes with the other run's set
// there. Then, on made-up observations: a root whose pid was reused is
// not the process in a line of /proc, and a writer that started before
// the root is not the root's whatever pid its entry's ancestors name.
func TestSemWatchUnderRoot(t *testing.T) {
	self := os.Getpid()
	// The trial's root (a shell) with a writer below it, and a writer
	// beside it, a child of this process.
	root := exec.Command("sh", "-c", "sleep 60 & wait")
	if err := root.Start(); err != nil {
		t.Fatal(err)
	}
	beside := exec.Command("sleep", "60")
	if err := beside.Start(); err != nil {
		root.Process.Kill()
		root.Wait()
		t.Fatal(err)
	}
	below := 0
	stop := func() {
		if below != 0 {
			syscall.Kill(below, syscall.SIGKILL) // the shell's wait returns, and it exits
		}
		beside.Process.Kill()
		beside.Wait()
		root.Process.Kill()
		root.Wait()
	}
	defer stop()
	for deadline := time.Now().Add(20 * time.Second); below == 0; time.Sleep(5 * time.Millisecond) {
		for _, p := range descendants(procs(), root.Process.Pid) {
			if p.state != "Z" {
				below = p.pid
			}
		}
		if below == 0 && time.Now().After(deadline) {
			t.Fatalf("the shell %d started no child", root.Process.Pid)
		}
	}
	w := semSet(t)
	w.under(t, root.Process.Pid)
	rootRef := procRefOf(root.Process.Pid)
	jdir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}
	keys, ids := randomSets(t, 2)
	belowKey, besideKey, belowID, besideID := keys[0], keys[1], ids[0], ids[1]
	entryOf := func(pid int, key int32) ipcown.Entry {
		start, _ := ipcown.ProcStart(pid)
		return ipcown.Entry{PID: pid, Start: start, Boot: ipcown.BootID(), Key: key, NSems: 1, UID: os.Geteuid(),
			Time: time.Now().Unix(), IPCNS: ipcown.IPCNS(), Ancestors: ipcown.Ancestors(pid)}
	}
	putJournal(t, jdir, entryOf(below, belowKey))
	putJournal(t, jdir, entryOf(beside.Process.Pid, besideKey))
	waitSeen(t, w, belowKey, besideKey)
	w.mu.Lock()
	overflow := w.overflow
	w.mu.Unlock()
	if overflow {
		t.Skip("the inotify queue overflowed: every new set counts")
	}
	check := func(when string) {
		t.Helper()
		got := setIDs(w.ours(t, 0))
		if !slices.Contains(got, belowID) || slices.Contains(got, besideID) {
			t.Errorf("%s: sets of the root's run %v: want %d (journaled below the root) and not %d (beside it)", when, got, belowID, besideID)
		}
		whole := setIDs(w.ours(t, self))
		if !slices.Contains(whole, belowID) || !slices.Contains(whole, besideID) {
			t.Errorf("%s: sets of this process's runs %v: want both %d and %d", when, whole, belowID, besideID)
		}
		w.mu.Lock()
		_, why, _, _ := w.owner(belowKey, w.scope(0))
		_, whyNot := w.seen[besideKey][0].under(rootRef)
		w.mu.Unlock()
		if !strings.Contains(why, "a descendant of pid "+strconv.Itoa(root.Process.Pid)) {
			t.Errorf("%s: why the set below the root is its: %q", when, why)
		}
		if !strings.Contains(whyNot, "outside pid "+strconv.Itoa(root.Process.Pid)+"'s tree") {
			t.Errorf("%s: why the set beside the root is not its: %q", when, whyNot)
		}
	}
	check("alive")
	stop()
	below = 0
	check("gone")
	// The leak check of the root's run: passes once its set is gone,
	// with the set of the run beside it still there.
	if err := ipcown.Remove(belowID); err != nil {
		t.Fatal(err)
	}
	assertNoNewSems(t, w)

	// Made-up observations.
	line := ipcown.Ancestors(self)
	if len(line) == 0 || line[len(line)-1] != 1 {
		t.Skipf("this process's ancestors %v do not reach init", line)
	}
	r := procRef{pid: goneWriter - 1, start: 2000}
	live := journaled{writer: procRef{pid: goneWriter, start: 3000}, alive: true, whole: true,
		line: []procRef{{pid: r.pid, start: r.start}, {pid: 1, start: 1}}}
	reused := live
	reused.line = []procRef{{pid: r.pid, start: 2500}, {pid: 1, start: 1}}
	gone := func(start uint64) journaled {
		return journaled{writer: procRef{pid: goneWriter, start: start}, note: "gone",
			entry: &ipcown.Entry{PID: goneWriter, Start: start, Ancestors: append([]int{r.pid}, line...)}}
	}
	for _, c := range []struct {
		name string
		j    journaled
		r    procRef
		ours bool
	}{
		{"live, below the root", live, r, true},
		{"live, below another process with the root's pid", reused, r, false},
		{"the root itself", journaled{writer: r, alive: true, whole: true, line: []procRef{{pid: 1, start: 1}}}, r, true},
		{"the root's pid, another process", journaled{writer: procRef{pid: r.pid, start: 2600}, alive: true, whole: true, line: []procRef{{pid: 1, start: 1}}}, r, false},
		{"gone, started after the root, its pid in the entry's line", gone(3000), r, true},
		{"gone, started before the root, its pid in the entry's line", gone(1000), r, false},
		{"gone, its start unknown, the root's pid in the entry's line", gone(0), r, true},
		{"gone, the entry's line without the root", gone(3000), procRef{pid: goneWriter - 2, start: 2000}, false},
	} {
		if ours, why := c.j.under(c.r); ours != c.ours || why == "" {
			t.Errorf("%s: under = %v (%s), want %v", c.name, ours, why, c.ours)
		}
	}
}
