package harness

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"contend/internal/ipcown"
)

// semKeyEnv passes the key of the child's SysV set (decimal; 0 is
// IPC_PRIVATE).
const semKeyEnv = "CONTEND_SEM_KEY"

// journalSet picks the key of the set of nsems semaphores a repetition
// creates and journals it, with the repetition's timeout, before the child
// starts (internal/ipcown); nil for a child that creates none (nsems 0).
// The note says why the child runs without a key, if it does.
func journalSet(nsems int, timeout time.Duration) (*ipcown.Entry, string) {
	if nsems == 0 {
		return nil, ""
	}
	e, err := ipcown.Begin(nsems, timeout)
	if err != nil {
		return e, fmt.Sprintf("the semaphore set was made without a key (%v): a set of a child killed before reporting it could not be found", err)
	}
	return e, ""
}

func ownKey(e *ipcown.Entry) string {
	if e == nil {
		return "0"
	}
	return strconv.Itoa(int(e.Key))
}

// removeOwnSets removes the sets the child reported and did not remove, and
// the set under the journal's key if the child died before reporting it,
// each only if it matches the journal entry: a set contend cannot prove it
// created is never removed. The entry is deleted when nothing is left to
// retry (else `contend cleanup` retries once this contend is gone).
func removeOwnSets(own *ipcown.Entry, ipcs, removed map[string]bool, keyTaken bool) (cleaned, notes []string) {
	if own == nil {
		for obj := range ipcs {
			notes = append(notes, fmt.Sprintf("left %s alone: the workload declares no semaphore set (Workload.SemSet)", obj))
		}
		return nil, notes
	}
	if !keyTaken {
		if s, ok := own.Find(); ok && !removed[fmt.Sprintf("sem %d", s.ID)] {
			ipcs[fmt.Sprintf("sem %d", s.ID)] = true
		}
	}
	retry := false
	for obj := range ipcs {
		kind, idText, _ := strings.Cut(obj, " ")
		id, err := strconv.Atoi(idText)
		if kind != "sem" || err != nil {
			notes = append(notes, fmt.Sprintf("left %s alone: not a semaphore set", obj))
			continue
		}
		exists, ours := own.Owned(id)
		switch {
		case !exists:
		case !ours:
			notes = append(notes, fmt.Sprintf("left semaphore set %d alone: it does not match the set this repetition created", id))
		default:
			if err := ipcown.Remove(id); err != nil {
				retry = true
				notes = append(notes, fmt.Sprintf("could not remove %s left by the child: %v ('contend cleanup' retries once this run has ended)", obj, err))
			} else {
				cleaned = append(cleaned, obj)
			}
		}
	}
	if !retry {
		own.Done()
	}
	return cleaned, notes
}
