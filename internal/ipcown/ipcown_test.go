package ipcown

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "ipcown-test")
	if err != nil {
		panic(err)
	}
	testDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// semget creates a set as another program would; the test removes it.
func semget(t *testing.T, key int32, nsems int, mode int) int {
	t.Helper()
	const ipcCreat, ipcExcl = 0o1000, 0o2000
	id, _, e := unix.Syscall(unix.SYS_SEMGET, uintptr(key), uintptr(nsems), uintptr(ipcCreat|ipcExcl|mode))
	if e != 0 {
		t.Skipf("semget: %v", e)
	}
	t.Cleanup(func() { Remove(int(id)) })
	return int(id)
}

func exists(id int) bool {
	sets, _ := Sets()
	for _, s := range sets {
		if s.ID == id {
			return true
		}
	}
	return false
}

func TestMatches(t *testing.T) {
	e := Entry{Key: 0x1234, NSems: 3, UID: 1000, Time: 100, Deadline: 200}
	ours := Set{Key: 0x1234, NSems: 3, Mode: 0o600, UID: 1000, CUID: 1000, CTime: 150, OTime: 160}
	if !e.Matches(ours, false) {
		t.Fatalf("its own set does not match")
	}
	priv := ours
	priv.Key = 0
	if e.Matches(priv, false) || !e.Matches(priv, true) {
		t.Errorf("an IPC_PRIVATE set must match only as a reported id")
	}
	for name, change := range map[string]func(*Set){
		"other key":           func(s *Set) { s.Key = 0x1235 },
		"other size":          func(s *Set) { s.NSems = 4 },
		"other mode":          func(s *Set) { s.Mode = 0o666 },
		"other creator":       func(s *Set) { s.CUID = 0 },
		"other owner":         func(s *Set) { s.UID = 0 },
		"made before":         func(s *Set) { s.CTime = 99 },
		"changed after":       func(s *Set) { s.CTime = 201 },
		"used after deadline": func(s *Set) { s.OTime = 201 },
	} {
		s := ours
		change(&s)
		if e.Matches(s, true) {
			t.Errorf("%s: a foreign set matches", name)
		}
	}
	e.Key = 0
	if e.Matches(ours, false) {
		t.Errorf("an entry without a key matches a keyed set")
	}
}

// TestBeginPicksAFreeKey checks that the key is free, journalled, and that
// a set made under it is found, and a foreign set under it is not.
func TestBeginPicksAFreeKey(t *testing.T) {
	e, err := Begin(2, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Done()
	if e.Key == 0 || !keyFree(e.Key) {
		t.Fatalf("key %#x is not a free key", e.Key)
	}
	b, err := os.ReadFile(e.path)
	if err != nil {
		t.Fatalf("no journal entry: %v", err)
	}
	var got Entry
	if err := json.Unmarshal(b, &got); err != nil || got.Key != e.Key || got.PID != os.Getpid() || got.NSems != 2 || got.Start == 0 {
		t.Errorf("journal entry %s (%v), want key %#x, pid %d, 2 semaphores", b, err, e.Key, os.Getpid())
	}
	// The executable that wrote it, links resolved: cleanup --binary
	// matches on it.
	self, _ := os.Executable()
	if self, _ = filepath.EvalSymlinks(self); got.Exe == "" || got.Exe != self || got.Exe != Self() {
		t.Errorf("journal entry's exe %q, want %q", got.Exe, self)
	}
	if _, ok := e.Find(); ok {
		t.Errorf("found a set under a free key")
	}
	id := semget(t, e.Key, 2, 0o600)
	if s, ok := e.Find(); !ok || s.ID != id {
		t.Errorf("Find = %+v %v, want set %d", s, ok, id)
	}
	if exists, ours := e.Owned(id); !exists || !ours {
		t.Errorf("Owned(%d) = %v %v", id, exists, ours)
	}
	Remove(id)
	semget(t, e.Key, 5, 0o600) // another program's set under the key
	if _, ok := e.Find(); ok {
		t.Errorf("a set of 5 semaphores matches an entry of 2")
	}
	if err := e.Done(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.path); !os.IsNotExist(err) {
		t.Errorf("journal entry left: %v", err)
	}
}

// writeEntry journals e as a contend process with pid would have.
func writeEntry(t *testing.T, e Entry) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("%d-%08x.json", e.PID, uint32(e.Key)))
	b, _ := json.Marshal(e)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	return p
}

func staleFile(t *testing.T, file string) (Stale, bool) {
	t.Helper()
	stale, err := StaleEntries()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		if s.File == file {
			return s, true
		}
	}
	return Stale{}, false
}

func TestStaleEntries(t *testing.T) {
	const dead = 0x3ffffff0 // above any pid_max
	now := time.Now().Unix()

	// A live contend (this process): its repetition is in flight.
	start, _ := ProcStart(os.Getpid())
	live := writeEntry(t, Entry{PID: os.Getpid(), Start: start, Boot: BootID(), Key: 0x0c0ffee1, NSems: 1, UID: os.Geteuid(), Time: now})
	if _, ok := staleFile(t, live); ok {
		t.Errorf("the entry of a live process is stale")
	}

	// A dead contend whose child made its set: found, removed.
	key := int32(0x0c0ffee2)
	id := semget(t, key, 3, 0o600)
	file := writeEntry(t, Entry{PID: dead, Boot: BootID(), Key: key, NSems: 3, UID: os.Geteuid(), Time: now - 1, Deadline: now + 60})
	s, ok := staleFile(t, file)
	if !ok || s.Set.ID != id {
		t.Fatalf("stale entry %+v %v, want the set %d", s, ok, id)
	}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if exists(id) {
		t.Errorf("set %d not removed", id)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("entry not removed: %v", err)
	}

	// A dead contend that was killed before its child made a set; another
	// program made one under the key long after: left alone.
	key = 0x0c0ffee3
	foreign := semget(t, key, 3, 0o600)
	file = writeEntry(t, Entry{PID: dead, Boot: BootID(), Key: key, NSems: 3, UID: os.Geteuid(), Time: now - 3600, Deadline: now - 3500})
	s, ok = staleFile(t, file)
	if !ok || s.Set.ID != -1 {
		t.Fatalf("stale entry %+v %v, want no set", s, ok)
	}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if !exists(foreign) {
		t.Errorf("the foreign set %d was removed", foreign)
	}

	// A torn entry of a dead process: stale, no set.
	dir, _ := Dir()
	torn := filepath.Join(dir, fmt.Sprintf("%d-0c0ffee4.json", dead))
	os.WriteFile(torn, []byte(`{"pid":`), 0o600)
	t.Cleanup(func() { os.Remove(torn) })
	if s, ok := staleFile(t, torn); !ok || s.Set.ID != -1 {
		t.Errorf("torn entry: %+v %v", s, ok)
	}
}

func TestAliveZombie(t *testing.T) {
	if !Alive(os.Getpid(), 0) {
		t.Fatal("this process is not alive")
	}
	start, _ := ProcStart(os.Getpid())
	if Alive(os.Getpid(), start+1) {
		t.Error("a process with another start time (a reused pid) is alive")
	}
	// A child that exited and was not waited for is a zombie: dead.
	cmd := exec.Command("/bin/true")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start /bin/true: %v", err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, st := ProcStart(pid); st == "Z" {
			if Alive(pid, 0) {
				t.Errorf("a zombie counts as alive")
			}
			return
		}
	}
	t.Fatalf("child %d never became a zombie", pid)
}

// TestStaleEntryOfAnotherNamespace checks that an entry of a dead contend
// written in another IPC namespace is listed as such, is not matched
// against this namespace's sets (a set here under its key, of its size,
// mode and time, is left alone) and that Remove refuses it; the entry of
// this namespace, and one without a namespace (an older contend's), are
// matched as before.
func TestStaleEntryOfAnotherNamespace(t *testing.T) {
	ns := IPCNS()
	if ns == 0 {
		t.Skip("cannot read /proc/self/ns/ipc")
	}
	const dead = 0x3ffffff1
	now := time.Now().Unix()
	for _, c := range []struct {
		key   int32
		ns    uint64
		other bool
	}{{0x0c0ffee5, ns + 1, true}, {0x0c0ffee6, ns, false}, {0x0c0ffee7, 0, false}} {
		id := semget(t, c.key, 2, 0o600)
		file := writeEntry(t, Entry{PID: dead, Boot: BootID(), Key: c.key, NSems: 2, UID: os.Geteuid(), Time: now - 1, Deadline: now + 60, IPCNS: c.ns})
		s, ok := staleFile(t, file)
		if !ok {
			t.Fatalf("entry %#x (namespace %d) is not stale", c.key, c.ns)
		}
		if s.OtherNS != c.other {
			t.Errorf("entry %#x of namespace %d (this one %d): OtherNS %v, want %v", c.key, c.ns, ns, s.OtherNS, c.other)
		}
		if !c.other {
			if s.Set.ID != id {
				t.Errorf("entry %#x of namespace %d: set %d, want %d", c.key, c.ns, s.Set.ID, id)
			}
			continue
		}
		if s.Set.ID != -1 {
			t.Errorf("entry of another namespace matched set %d of this one", s.Set.ID)
		}
		if err := s.Remove(); err == nil || !strings.Contains(err.Error(), "namespace") {
			t.Errorf("Remove of an entry of another namespace: %v, want a refusal naming the namespace", err)
		}
		if !exists(id) {
			t.Errorf("set %d of this namespace was removed for an entry of another", id)
		}
		if _, err := os.Stat(file); err != nil {
			t.Errorf("entry of another namespace removed: %v", err)
		}
	}
	// An entry of another boot is stale whatever its namespace: the
	// namespace cannot have outlived the boot.
	file := writeEntry(t, Entry{PID: dead, Boot: "another-boot", Key: 0x0c0ffee8, NSems: 2, UID: os.Geteuid(), Time: now - 1, IPCNS: ns + 1})
	if s, ok := staleFile(t, file); !ok || s.OtherNS {
		t.Errorf("entry of another boot: %+v %v, want stale, not OtherNS", s, ok)
	}
}

func TestBeginRecordsNamespace(t *testing.T) {
	e, err := Begin(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Done()
	b, _ := os.ReadFile(e.path)
	var got Entry
	if err := json.Unmarshal(b, &got); err != nil || got.IPCNS == 0 || got.IPCNS != IPCNS() {
		t.Errorf("entry %s: ipcns %d, want %d", b, got.IPCNS, IPCNS())
	}
}

// TestForcedKeyOfAnExistingSet: a set already under the forced key when
// the entry is written (in the same second, which ctime cannot tell apart)
// is recorded as taken and never matches: a repetition whose child was
// killed before it said EEXIST must not remove it (TestFaultInjection hit
// this in its first second).
func TestForcedKeyOfAnExistingSet(t *testing.T) {
	key := int32(0x0c0ffe00 | int32(os.Getpid()&0xff))
	id := semget(t, key, 3, 0o600)
	t.Setenv(TestKeyEnv, strconv.Itoa(int(key)))
	e, err := Begin(3, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Done()
	if e.Taken != id+1 {
		t.Errorf("Taken %d, want %d (the set already under the key)", e.Taken, id+1)
	}
	if s, ok := e.Find(); ok {
		t.Errorf("Find took the set that was there before the entry for the repetition's: %+v", s)
	}
	if exists, ours := e.Owned(id); !exists || ours {
		t.Errorf("Owned(%d) = %v, %v: want it to exist and not be ours", id, exists, ours)
	}
}

// TestBeginRecordsAncestors: the entry names the writer's ancestors, its
// parent first, up to init, so that once the writer is gone the entry
// still tells whose descendant it was (Descends).
func TestBeginRecordsAncestors(t *testing.T) {
	e, err := Begin(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Done()
	got, err := ReadEntry(e.path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ancestors) == 0 || got.Ancestors[0] != os.Getppid() || got.Ancestors[len(got.Ancestors)-1] != 1 {
		t.Fatalf("ancestors %v, want this process's parent %d first and 1 last", got.Ancestors, os.Getppid())
	}
	for i, a := range got.Ancestors[1:] {
		if _, _, ppid := procStat(got.Ancestors[i]); ppid != a {
			t.Errorf("ancestors %v: the parent of %d is %d, not %d", got.Ancestors, got.Ancestors[i], ppid, a)
		}
	}
	for _, pid := range []int{os.Getpid(), os.Getppid(), 1} {
		if d, known := got.Descends(pid); !d || !known {
			t.Errorf("Descends(%d) = %v, %v: want a descendant", pid, d, known)
		}
	}
	if d, known := got.Descends(0x3ffffff2); d || !known {
		t.Errorf("Descends of a pid that cannot exist = %v, %v: want known not to be", d, known)
	}
}

// TestAncestorsOfAChild: a child's line is this process and this
// process's line; a process that is gone has none.
func TestAncestorsOfAChild(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	pid := cmd.Process.Pid
	got := Ancestors(pid)
	want := append([]int{os.Getpid()}, Ancestors(os.Getpid())...)
	if !slices.Equal(got, want) {
		t.Errorf("Ancestors(child) = %v, want %v", got, want)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if got := Ancestors(pid); len(got) != 0 {
		t.Errorf("Ancestors of a reaped child = %v, want none", got)
	}
}

// TestEntryAncestorsFormat: entries with and without the ancestors (an
// older contend's) both read; one without cannot tell whose it is, nor
// can one whose line was cut short; a link at an entry's name is
// refused, as for every journal file.
func TestEntryAncestorsFormat(t *testing.T) {
	const dead = 0x3ffffff3
	now := time.Now().Unix()
	withLine := writeEntry(t, Entry{PID: dead, Boot: BootID(), Key: 0x0c0ffe10, NSems: 1, UID: os.Geteuid(), Time: now, Ancestors: []int{4242, 17, 1}})
	e, err := ReadEntry(withLine)
	if err != nil || !slices.Equal(e.Ancestors, []int{4242, 17, 1}) || e.PID != dead {
		t.Fatalf("ReadEntry = %+v, %v", e, err)
	}
	if b, _ := os.ReadFile(withLine); !strings.Contains(string(b), `"ancestors":[4242,17,1]`) {
		t.Errorf("the entry's file %s does not hold its ancestors as \"ancestors\"", b)
	}
	for pid, want := range map[int][2]bool{dead: {true, true}, 17: {true, true}, 4242: {true, true}, 18: {false, true}} {
		if d, known := e.Descends(pid); d != want[0] || known != want[1] {
			t.Errorf("Descends(%d) = %v, %v, want %v", pid, d, known, want)
		}
	}
	// An older contend's entry, as it wrote it: no "ancestors".
	dir, _ := Dir()
	old := filepath.Join(dir, fmt.Sprintf("%d-0c0ffe11.json", dead))
	text := fmt.Sprintf(`{"pid":%d,"start":5,"boot":%q,"key":202374673,"nsems":1,"uid":%d,"time":%d,"exe":"/usr/bin/contend","ipcns":%d}`+"\n", dead, BootID(), os.Geteuid(), now, IPCNS())
	if err := os.WriteFile(old, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(old) })
	e, err = ReadEntry(old)
	if err != nil || e.PID != dead || e.Key != 0x0c0ffe11 || e.Ancestors != nil {
		t.Fatalf("ReadEntry of an older entry = %+v, %v", e, err)
	}
	if d, known := e.Descends(os.Getpid()); d || known {
		t.Errorf("an entry without ancestors: Descends = %v, %v, want unknown", d, known)
	}
	if s, ok := staleFile(t, old); !ok || s.Set.ID != -1 {
		t.Errorf("the older entry is not listed stale as before: %+v %v", s, ok)
	}
	cut := Entry{PID: dead, Ancestors: []int{4242, 17}}
	if d, known := cut.Descends(os.Getpid()); d || known {
		t.Errorf("a line cut short: Descends = %v, %v, want unknown", d, known)
	}
	// A link at an entry's name is not followed.
	link := filepath.Join(dir, fmt.Sprintf("%d-0c0ffe12.json", dead))
	if err := os.Symlink(withLine, link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(link) })
	if _, err := ReadEntry(link); err == nil {
		t.Errorf("ReadEntry followed a symbolic link")
	}
	if _, err := ReadEntry(filepath.Join(dir, "nosuch.json")); !os.IsNotExist(err) {
		t.Errorf("ReadEntry of a missing entry: %v, want not-exist", err)
	}
	torn := filepath.Join(dir, fmt.Sprintf("%d-0c0ffe13.json", dead))
	os.WriteFile(torn, []byte(`{"pid":`), 0o600)
	t.Cleanup(func() { os.Remove(torn) })
	if _, err := ReadEntry(torn); err == nil {
		t.Errorf("ReadEntry of a torn entry: no error")
	}
}
