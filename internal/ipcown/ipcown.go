// Package ipcown proves which SysV semaphore sets contend created, so that
// contend removes those and never anything else.
//
// Before a repetition child starts, the parent picks a key that is free
// right now (semget(key, 0, 0) fails with ENOENT) and writes a journal
// Entry (a small file in Dir) naming itself and its ancestors, the key,
// the set's size and the time. The child creates its set with IPC_CREAT|IPC_EXCL on that key
// and never adopts an existing one. A set counts as contend's only if it
// matches its entry (Entry.Matches): the key (or IPC_PRIVATE for an id the
// child reported), the number of semaphores, mode 0600, creator uid =
// the entry's uid, and a ctime not before the entry. After the repetition
// the parent removes what matches and deletes the entry; `contend cleanup`
// does the same for the entries whose contend process is dead (Stale).
package ipcown

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"contend/internal/safefile"
)

// TestKeyEnv forces the key (decimal or 0x hex) without checking that it
// is free: tests use it to put a foreign set under the child's key, as if
// another program took the key between the check and the child's semget.
// A set already under the forced key is recorded in the entry (Taken) and
// never taken for the repetition's.
const TestKeyEnv = "CONTEND_TEST_SEM_KEY"

// Entry is the journal record of one repetition in flight.
type Entry struct {
	PID   int    `json:"pid"`   // the contend process that runs the repetition
	Start uint64 `json:"start"` // its start time (/proc/PID/stat field 22), against pid reuse
	Boot  string `json:"boot"`  // /proc/sys/kernel/random/boot_id: sets do not survive a reboot
	Key   int32  `json:"key"`   // the key the child creates its set with
	NSems int    `json:"nsems"` // the set's size
	UID   int    `json:"uid"`   // contend's effective uid, the set's creator
	Time  int64  `json:"time"`  // Unix seconds, read before the key was found free
	// Deadline is the Unix second after which the repetition's
	// processes are dead (the timeout, plus a margin); 0 for none. A set
	// changed or used after it is not the repetition's.
	Deadline int64 `json:"deadline,omitempty"`
	// Exe is the executable of the contend that wrote the entry, so that
	// the cleanup of one installation (the playbook's, one binary a host
	// directory) can leave other contends' leftovers alone; "" in
	// entries of older versions.
	Exe string `json:"exe,omitempty"`
	// IPCNS is the inode of contend's IPC namespace (/proc/self/ns/ipc):
	// a set exists only in the namespace it was made in, so only a
	// cleanup in that namespace can find it. 0 in an entry of a contend
	// that did not record it (or could not read it): such an entry is
	// taken as of the namespace that reads it.
	IPCNS uint64 `json:"ipcns,omitempty"`
	// Taken is 1 + the id of a set that was already under Key when the
	// entry was written (0: none, as for every key Begin picks, which it
	// checks free): that set is never the repetition's, whatever its
	// ctime, which has a resolution of one second and so cannot tell a set
	// made in the entry's second from one made before it.
	Taken int `json:"taken,omitempty"`
	// Ancestors is the writer's line of ancestors as /proc showed it
	// when the entry was written: its parent, that one's parent and so
	// on, ending with 1 when the walk reached init (Ancestors). It says
	// whose run the entry was ("journaled by pid N, a descendant of M")
	// after the writer is gone (Descends). Absent in entries of older
	// versions.
	Ancestors []int `json:"ancestors,omitempty"`

	path string
}

// Self is the path of the running executable (os.Executable with links
// resolved), "" when it cannot be read: what Exe records.
func Self() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return SameFile(p)
}

// SameFile is path with symbolic links resolved and made absolute, the
// form in which Exe is compared; path itself when it cannot be resolved.
func SameFile(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	return path
}

// Set is one line of /proc/sysvipc/sem.
type Set struct {
	Key          int32
	ID           int
	Mode         uint32 // permission bits
	NSems        int
	UID, CUID    int
	OTime, CTime int64
}

// oldKeys is the top byte of the keys contend used before the journal
// (0x63000000 | child pid): an older contend's cleanup removes such sets
// when the pid is dead, so they are never picked.
const oldKeys = 0x63

// deadlineMargin covers the kill and reaping after a timeout and clock
// granularity.
const deadlineMargin = 10

// Begin picks a free key for a set of nsems semaphores made by a
// repetition that ends within timeout (0: no bound) and writes the
// journal entry. The entry is returned even when it could not be written
// (with the error): the caller then runs without a key (Key 0,
// IPC_PRIVATE), which is safe but cannot find a set whose child died
// before reporting it.
func Begin(nsems int, timeout time.Duration) (*Entry, error) {
	e := &Entry{PID: os.Getpid(), Boot: BootID(), NSems: nsems, UID: os.Geteuid(), Time: time.Now().Unix(), IPCNS: IPCNS(), Exe: Self()}
	if timeout > 0 {
		e.Deadline = e.Time + int64(timeout/time.Second) + 1 + deadlineMargin
	}
	e.Start, _ = ProcStart(e.PID)
	e.Ancestors = Ancestors(e.PID)
	if s := os.Getenv(TestKeyEnv); s != "" {
		k, err := strconv.ParseInt(s, 0, 64)
		if err != nil || k == 0 || k != int64(int32(k)) && k != int64(uint32(k)) {
			return e, fmt.Errorf("%s=%q is not a non-zero 32-bit key", TestKeyEnv, s)
		}
		e.Key = int32(k)
		if id, _, errno := unix.Syscall(unix.SYS_SEMGET, uintptr(e.Key), 0, 0); errno == 0 {
			e.Taken = int(id) + 1
		}
	} else {
		for i := 0; i < 1000 && e.Key == 0; i++ {
			k := int32(rand.Uint32())
			if k != 0 && uint32(k)>>24 != oldKeys && keyFree(k) {
				e.Key = k
			}
		}
		if e.Key == 0 {
			return e, errors.New("found no free SysV key in 1000 random tries")
		}
	}
	dir, err := Dir()
	if err != nil {
		e.Key = 0
		return e, err
	}
	e.path = filepath.Join(dir, fmt.Sprintf("%d-%08x.json", e.PID, uint32(e.Key)))
	b, _ := json.Marshal(e)
	if err := putEntry(e.path, append(b, '\n')); err != nil {
		os.Remove(e.path)
		e.Key, e.path = 0, ""
		return e, fmt.Errorf("cannot write the IPC journal: %v", err)
	}
	return e, nil
}

// putEntry writes an entry's file, refusing a symbolic link or a file
// of another user at its name (safefile).
func putEntry(path string, b []byte) error {
	f, created, err := safefile.OpenOrCreate(path, os.O_WRONLY, 0o600, safefile.Self)
	if err != nil {
		return err
	}
	if !created {
		f.Truncate(0) // this user's own entry, of an earlier run under the same pid and key
	}
	if _, err = f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Done deletes the journal entry.
func (e *Entry) Done() error {
	if e == nil || e.path == "" {
		return nil
	}
	if err := os.Remove(e.path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Matches tells whether s is a set the repetition of e created: under its
// key (or IPC_PRIVATE with private), of its size, mode 0600, owned and
// created by its uid, changed last (semget, SETALL) no earlier than the
// entry, and neither changed nor used (semop) after its deadline.
func (e *Entry) Matches(s Set, private bool) bool {
	keyOK := e.Key != 0 && s.Key == e.Key || private && s.Key == 0
	inTime := s.CTime >= e.Time && (e.Deadline == 0 || s.CTime <= e.Deadline && s.OTime <= e.Deadline)
	older := e.Taken != 0 && s.ID == e.Taken-1
	return keyOK && inTime && !older && s.NSems == e.NSems && s.Mode == 0o600 && s.CUID == e.UID && s.UID == e.UID
}

// Find returns the set under the entry's key if it matches the entry.
func (e *Entry) Find() (Set, bool) {
	if e.Key == 0 {
		return Set{}, false
	}
	sets, err := Sets()
	if err != nil {
		return Set{}, false
	}
	for _, s := range sets {
		if s.Key == e.Key {
			return s, e.Matches(s, false)
		}
	}
	return Set{}, false
}

// Owned tells whether a set with id exists and whether it matches the
// entry (a set the child reported: under the key, or IPC_PRIVATE).
func (e *Entry) Owned(id int) (exists, ours bool) {
	sets, err := Sets()
	if err != nil {
		return false, false
	}
	for _, s := range sets {
		if s.ID == id {
			return true, e.Matches(s, true)
		}
	}
	return false, false
}

// Sets lists the semaphore sets of this IPC namespace.
func Sets() ([]Set, error) {
	b, err := os.ReadFile("/proc/sysvipc/sem")
	if err != nil {
		return nil, err
	}
	var out []Set
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 10 {
			continue
		}
		var n [10]int64
		ok := true
		for j := range n {
			base := 10
			if j == 2 {
				base = 8
			}
			x, err := strconv.ParseInt(f[j], base, 64)
			ok = ok && err == nil
			n[j] = x
		}
		if !ok {
			continue
		}
		out = append(out, Set{Key: int32(n[0]), ID: int(n[1]), Mode: uint32(n[2]) & 0o777, NSems: int(n[3]),
			UID: int(n[4]), CUID: int(n[6]), OTime: n[8], CTime: n[9]})
	}
	return out, nil
}

// Remove removes the set with id (IPC_RMID); a set already gone is no error.
func Remove(id int) error {
	const ipcRMID = 0
	_, _, e := unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, ipcRMID, 0, 0, 0)
	if e != 0 && e != unix.EINVAL && e != unix.EIDRM {
		return e
	}
	return nil
}

// keyFree tells whether no set has key k now.
func keyFree(k int32) bool {
	_, _, e := unix.Syscall(unix.SYS_SEMGET, uintptr(k), 0, 0)
	return e == unix.ENOENT
}

// ProcStart returns the start time of process pid (field 22 of
// /proc/PID/stat, 0 when unreadable) and its state (field 3): with the pid
// and the boot, what names one process for the journals.
func ProcStart(pid int) (uint64, string) {
	st, state, _ := procStat(pid)
	return st, state
}

// procStat reads the start time, the state and the parent (field 4) of
// process pid from /proc/PID/stat; state "" when it cannot be read.
func procStat(pid int) (start uint64, state string, ppid int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, "", 0
	}
	start, _ = strconv.ParseUint(f[19], 10, 64)
	ppid, _ = strconv.Atoi(f[1])
	return start, f[0], ppid
}

// MaxAncestors bounds the line of ancestors an entry records.
const MaxAncestors = 64

// Proc names one process: a pid is reused, the pid with its start time
// (clock ticks after boot, /proc/PID/stat) is not.
type Proc struct {
	PID   int
	Start uint64
}

// Line returns the start time of process pid (0 when it is gone) and its
// line of ancestors from /proc: its parent, that one's parent and so on,
// each with its start time, at most MaxAncestors of them; whole tells
// whether the line reached the top (init, 1, then its last element, or a
// process without a parent in this pid namespace). The line is cut short
// where an ancestor cannot be read, or where the pid read as a parent
// started after its child: the parent exited during the walk and its pid
// went to another process.
func Line(pid int) (start uint64, line []Proc, whole bool) {
	start, state, ppid := procStat(pid)
	if state == "" {
		return 0, nil, false
	}
	for cstart := start; len(line) < MaxAncestors; {
		if ppid == 0 {
			return start, line, true
		}
		pstart, pstate, pppid := procStat(ppid)
		if pstate == "" || pstart > cstart {
			break
		}
		line = append(line, Proc{ppid, pstart})
		if ppid == 1 {
			return start, line, true
		}
		cstart, ppid = pstart, pppid
	}
	return start, line, false
}

// Ancestors returns the pids of process pid's line of ancestors (Line):
// ending with 1 when the walk reached init, cut short otherwise.
func Ancestors(pid int) []int {
	_, line, _ := Line(pid)
	var out []int
	for _, p := range line {
		out = append(out, p.PID)
	}
	return out
}

// Descends tells whether the entry was written by process pid or by a
// descendant of it (pid among its Ancestors), and whether the entry
// can tell: it cannot when pid is not there and the line of ancestors
// does not reach init (an entry of an older version, which recorded
// none, or a line cut short).
func (e *Entry) Descends(pid int) (descends, known bool) {
	if e.PID == pid {
		return true, true
	}
	for _, a := range e.Ancestors {
		if a == pid {
			return true, true
		}
	}
	n := len(e.Ancestors)
	return false, n > 0 && e.Ancestors[n-1] == 1
}

// ReadEntry reads the journal entry at path, as StaleEntries does (no
// symbolic link, a file of this user). An entry of an older version
// reads with the fields it did not record left zero.
func ReadEntry(path string) (Entry, error) {
	var e Entry
	b, err := safefile.ReadFile(path, safefile.Self)
	if err != nil {
		return e, err
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return Entry{}, fmt.Errorf("the journal entry %s: %v", path, err)
	}
	return e, nil
}

// IPCNS returns the inode of this process's IPC namespace
// (/proc/self/ns/ipc), 0 when it cannot be read. It names the namespace
// while the namespace lives; the kernel may give a later namespace the
// inode of one that is gone, which then takes that one's entries for its
// own: harmless, since a set is removed only if it matches the entry.
func IPCNS() uint64 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/ipc", &st); err != nil {
		return 0
	}
	return st.Ino
}

// BootID is the id of the running boot, read from the kernel (never a
// test override: journals outlive the processes that wrote them).
func BootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}
