package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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

// TestSemWatchGoneWriters: semWatch's decision (journaledByUs) for the
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
		ours, why := journaledByUs(self, goneWriter, c.path)
		if ours != c.ours || why == "" {
			t.Errorf("%s: journaledByUs = %v (%s), want %v", c.name, ours, why, c.ours)
		}
	}
	// Live writers: /proc tells, whatever an entry says.
	sibl := putJournal(t, dir, entry(0x0c5e000b, sibling))
	if ours, why := journaledByUs(self, self, sibl); !ours {
		t.Errorf("this process: journaledByUs = false (%s)", why)
	}
	if ours, why := journaledByUs(self, 1, putJournal(t, dir, entry(0x0c5e000c, descendant))); ours {
		t.Errorf("init, alive: journaledByUs = true (%s)", why)
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	if ours, why := journaledByUs(self, child.Process.Pid, sibl); !ours {
		t.Errorf("a live child: journaledByUs = false (%s)", why)
	}

	// Through the watch: the entries appear in the journal directory
	// while it runs, then sets under their keys.
	w := semSet(t)
	jdir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}
	var foreignKey, ourKey int32
	var foreignID, ourID int
	for i := 0; i < 100 && (foreignKey == 0 || ourKey == 0); i++ {
		k := int32(rand.Uint32()&0x00ffffff | 0x0c000000)
		if foreignKey == 0 {
			if id, ok := foreignSet(t, uint32(k), 1); ok {
				foreignKey, foreignID = k, id
			}
		} else if id, ok := foreignSet(t, uint32(k), 1); ok {
			ourKey, ourID = k, id
		}
	}
	if foreignKey == 0 || ourKey == 0 {
		t.Fatal("no free keys for the two sets")
	}
	putJournal(t, jdir, entry(foreignKey, sibling))
	putJournal(t, jdir, entry(ourKey, descendant))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		w.mu.Lock()
		_, f := w.foreign[foreignKey]
		_, o := w.keys[ourKey]
		w.mu.Unlock()
		if f && o {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch did not read both entries: foreign %v, ours %v", f, o)
		}
	}
	w.mu.Lock()
	if w.overflow {
		w.mu.Unlock()
		t.Skip("the inotify queue overflowed: every new set counts")
	}
	why := w.why[ourKey]
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
