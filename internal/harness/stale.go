package harness

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// StaleSet is a SysV semaphore set that a repetition child created (its
// key is SemKey of the child's pid) and that outlived the child and its
// parent: left when contend itself was killed with SIGKILL, the one death
// it cannot clean up after.
type StaleSet struct {
	ID, Key, PID int
}

// StaleSets lists the semaphore sets with a contend key whose creating
// process no longer exists. A set whose pid is alive again (reused) is
// left alone: it may belong to a run in progress.
func StaleSets() ([]StaleSet, error) {
	b, err := os.ReadFile("/proc/sysvipc/sem")
	if err != nil {
		return nil, err
	}
	var out []StaleSet
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 2 {
			continue
		}
		key, err1 := strconv.ParseInt(f[0], 10, 64)
		id, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || key < 0 || key>>24 != 0x63 {
			continue
		}
		pid := int(key & 0x00ffffff)
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			continue
		}
		out = append(out, StaleSet{ID: id, Key: int(key), PID: pid})
	}
	return out, nil
}

// RemoveStale removes the stale sets and returns what it removed.
func RemoveStale(sets []StaleSet) ([]StaleSet, error) {
	var done []StaleSet
	for _, s := range sets {
		if err := removeIPC(fmt.Sprintf("sem %d", s.ID)); err != nil {
			return done, fmt.Errorf("cannot remove semaphore set %d: %v", s.ID, err)
		}
		done = append(done, s)
	}
	return done, nil
}
