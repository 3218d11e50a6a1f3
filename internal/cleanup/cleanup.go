// Package cleanup removes what killed contend runs left: the SysV
// semaphore sets their journal entries prove contend's (ipcown), the
// tracefs settings they changed (tracejournal) and their private
// temporary directories whose owner is provably gone (tmpdir). It is
// `contend cleanup`.
package cleanup

import (
	"fmt"
	"io"
	"os"

	"contend/internal/esc"
	"contend/internal/ipcown"
	"contend/internal/plural"
	"contend/internal/tmpdir"
	"contend/internal/tracejournal"
)

// Options say what cleanup does: DryRun lists and removes nothing; Only,
// when not "", limits it to the entries of that contend executable (as
// ipcown.SameFile names it).
type Options struct {
	DryRun bool
	Only   string
}

// Run cleans up after the dead contends whose journal entries it finds,
// saying on w what it removed, restored or left alone.
func Run(w io.Writer, o Options) error {
	stale, err := ipcown.StaleEntries()
	if err != nil {
		return fmt.Errorf("cannot read the IPC journal: %v", err)
	}
	otherExe, err := sets(w, o, stale)
	if err != nil {
		return err
	}
	traces, err := tracejournal.Stale("")
	if err != nil {
		return fmt.Errorf("cannot read the tracefs journal: %v", err)
	}
	for _, e := range traces {
		if o.Only != "" && e.Exe != o.Only {
			otherExe++
			continue
		}
		if o.DryRun {
			fmt.Fprintln(w, e.Describe())
			continue
		}
		if err := e.Restore(); err != nil {
			return fmt.Errorf("%s: %v; run cleanup as root", e.Describe(), err)
		}
		fmt.Fprintln(w, "restored the "+e.Describe())
	}
	if o.Only == "" { // a directory does not name its executable
		tempDirs(w, o)
	}
	if otherExe > 0 {
		fmt.Fprintf(w, "left alone: %s of killed runs of other contend executables than %s (or of older versions)\n",
			plural.N(otherExe, "journal entry", "journal entries"), o.Only)
	}
	return nil
}

// tempDirs removes (or lists) the temporary directories of contends that
// are gone (the VM runner's, the will-it-scale compile's, the profile's):
// only those whose owner's lock is free, whatever PID namespace the owner
// runs in.
func tempDirs(w io.Writer, o Options) {
	if o.DryRun {
		for _, d := range tmpdir.Stale(os.TempDir(), tmpdir.Kinds...) {
			fmt.Fprintf(w, "temporary directory %s (left by a contend that is gone)\n", esc.Line(d))
		}
		return
	}
	for _, d := range tmpdir.RemoveStale(os.TempDir(), tmpdir.Kinds...) {
		fmt.Fprintf(w, "removed the temporary directory %s (left by a contend that is gone)\n", esc.Line(d))
	}
}

// sets removes (or lists) the semaphore sets of the stale entries and
// drops the entries whose set is gone; it returns how many entries of
// other executables it left alone.
func sets(w io.Writer, o Options, stale []ipcown.Stale) (int, error) {
	n, otherExe := 0, 0
	others := map[uint64]int{}
	var order []uint64
	for _, s := range stale {
		switch {
		case o.Only != "" && s.Exe != o.Only:
			otherExe++
		case s.OtherNS:
			if others[s.IPCNS] == 0 {
				order = append(order, s.IPCNS)
			}
			others[s.IPCNS]++
		case s.Set.ID < 0:
			if !o.DryRun {
				if err := s.Remove(); err != nil {
					return otherExe, fmt.Errorf("cannot remove the journal entry %s: %v", s.File, err)
				}
			}
		default:
			n++
			if err := removeSet(w, o, s); err != nil {
				return otherExe, err
			}
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "no semaphore set left by contend")
	}
	for _, ns := range order {
		fmt.Fprintln(w, OtherNSLine(ns, others[ns], ipcown.NSProcess(ns)))
	}
	return otherExe, nil
}

// removeSet removes the set of entry s, or with DryRun names it.
func removeSet(w io.Writer, o Options, s ipcown.Stale) error {
	if o.DryRun {
		fmt.Fprintf(w, "semaphore set %d (key 0x%08x, left by contend pid %d, gone)\n", s.Set.ID, uint32(s.Key), s.PID)
		return nil
	}
	if err := s.Remove(); err != nil {
		return err
	}
	fmt.Fprintf(w, "removed semaphore set %d (key 0x%08x, left by contend pid %d)\n", s.Set.ID, uint32(s.Key), s.PID)
	return nil
}

// OtherNSLine says that cleanup left n journal entries of IPC namespace
// ns alone, why, and how to clean them: in the namespace of process pid
// (0: none found).
func OtherNSLine(ns uint64, n, pid int) string {
	how := "no process in it was found: if it is gone, its sets went with it and the first cleanup after the next boot drops the entries"
	if n == 1 {
		how = "no process in it was found: if it is gone, its sets went with it and the first cleanup after the next boot drops the entry"
	}
	if pid > 0 {
		how = fmt.Sprintf("run cleanup in that namespace: nsenter --ipc=/proc/%d/ns/ipc contend cleanup", pid)
	}
	return fmt.Sprintf("left %s of runs killed in another IPC namespace (ipc:[%d]) alone: their semaphore sets are visible only there; %s",
		plural.N(n, "journal entry", "journal entries"), ns, how)
}
