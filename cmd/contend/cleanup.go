package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"contend/internal/ipcown"
	"contend/internal/plural"
	"contend/internal/tracejournal"
)

func cleanupCommand() *cli.Command {
	return &cli.Command{
		Name:  "cleanup",
		Usage: "remove SysV semaphore sets and restore tracefs settings left by contend runs that were killed",
		Description: `contend removes every semaphore set a repetition made, however the
repetition ends, as long as contend itself is alive: Ctrl-C, SIGTERM, a
timeout or a crash of the child are all cleaned up. Only SIGKILL of contend
itself can leave a set behind.

Before each repetition that makes a set, contend writes a journal entry
(/run/contend for root, else $XDG_RUNTIME_DIR/contend or /tmp/contend-UID)
naming itself, the set's key (one that was free), its size and the time.
cleanup looks only at the entries whose contend process is dead (a zombie
counts as dead), and removes a set only if it still matches its entry:
same key, size, mode 0600, created by the same user, not older than the
entry. Any other set, whatever its key, is never touched. Runs warn when
there is something to clean up.

A set exists only in the IPC namespace it was made in, so each entry
names its namespace (the inode of /proc/self/ns/ipc). cleanup handles
only the entries of its own namespace and leaves those of another one
(a run killed under unshare -i or in a container that shares the journal
directory) alone, saying how many and how to reach them: run cleanup in
that namespace (nsenter --ipc=/proc/PID/ns/ipc contend cleanup). When a
namespace ends, its sets end with it; its entries are dropped by the
first cleanup after the next boot. An entry written by a contend that did
not record the namespace counts as of the namespace cleanup runs in (the
set must still match it to be removed).

The same holds for tracefs (--evidence lock, ab --trace-events): before
changing a tracefs file a run journals its old value in the same
directory; cleanup writes back the old values of the runs whose contend
is dead. The next run that uses tracefs does this too, and says so on
the terminal (a warning, unless -q) and in its result file.

--binary PATH limits cleanup to what runs of that contend executable left
(each entry records the executable that wrote it): the Ansible role cleans
up after its own per-host binary and leaves, and does not blame itself for,
the leftovers of any other contend on the machine. Entries of older
versions record no executable and are left to a cleanup without --binary.

Examples:
   contend cleanup --dry-run     list them
   contend cleanup               remove them
   contend cleanup --binary /opt/contend/bin/contend`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "list the sets, remove nothing"},
			&cli.StringFlag{Name: "binary", Usage: "only what runs of this contend executable left (a path)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("cleanup takes no arguments")
			}
			only := ""
			if c.IsSet("binary") {
				b := c.String("binary")
				if st, err := os.Stat(b); b == "" || err != nil || !st.Mode().IsRegular() {
					return usagef("--binary: %q is not an executable file: give the path of a contend binary", b)
				}
				only = ipcown.SameFile(b)
			}
			mine := func(exe string) bool { return only == "" || exe == only }
			stale, err := ipcown.StaleEntries()
			if err != nil {
				return fmt.Errorf("cannot read the IPC journal: %v", err)
			}
			w := c.App.Writer
			n, otherExe := 0, 0
			others := map[uint64]int{}
			var order []uint64
			for _, s := range stale {
				if !mine(s.Exe) {
					otherExe++
					continue
				}
				if s.OtherNS {
					if others[s.IPCNS] == 0 {
						order = append(order, s.IPCNS)
					}
					others[s.IPCNS]++
					continue
				}
				if s.Set.ID < 0 {
					if !c.Bool("dry-run") {
						if err := s.Remove(); err != nil {
							return fmt.Errorf("cannot remove the journal entry %s: %v", s.File, err)
						}
					}
					continue
				}
				n++
				if c.Bool("dry-run") {
					fmt.Fprintf(w, "semaphore set %d (key 0x%08x, left by contend pid %d, gone)\n", s.Set.ID, uint32(s.Key), s.PID)
					continue
				}
				if err := s.Remove(); err != nil {
					return err
				}
				fmt.Fprintf(w, "removed semaphore set %d (key 0x%08x, left by contend pid %d)\n", s.Set.ID, uint32(s.Key), s.PID)
			}
			if n == 0 {
				fmt.Fprintln(w, "no semaphore set left by contend")
			}
			for _, ns := range order {
				fmt.Fprintln(w, otherNSLine(ns, others[ns]))
			}
			traces, err := tracejournal.Stale("")
			if err != nil {
				return fmt.Errorf("cannot read the tracefs journal: %v", err)
			}
			for _, e := range traces {
				if !mine(e.Exe) {
					otherExe++
					continue
				}
				if c.Bool("dry-run") {
					fmt.Fprintln(w, e.Describe())
					continue
				}
				if err := e.Restore(); err != nil {
					return fmt.Errorf("%s: %v; run cleanup as root", e.Describe(), err)
				}
				fmt.Fprintln(w, "restored the "+e.Describe())
			}
			if otherExe > 0 {
				fmt.Fprintf(w, "left alone: %s of killed runs of other contend executables than %s (or of older versions)\n",
					plural.N(otherExe, "journal entry", "journal entries"), only)
			}
			return nil
		},
	}
}

// otherNSLine says that cleanup left n journal entries of IPC namespace ns
// alone, why, and how to clean them.
func otherNSLine(ns uint64, n int) string {
	how := "no process in it was found: if it is gone, its sets went with it and the first cleanup after the next boot drops the entries"
	if n == 1 {
		how = "no process in it was found: if it is gone, its sets went with it and the first cleanup after the next boot drops the entry"
	}
	if pid := ipcown.NSProcess(ns); pid > 0 {
		how = fmt.Sprintf("run cleanup in that namespace: nsenter --ipc=/proc/%d/ns/ipc contend cleanup", pid)
	}
	return fmt.Sprintf("left %s of runs killed in another IPC namespace (ipc:[%d]) alone: their semaphore sets are visible only there; %s",
		plural.N(n, "journal entry", "journal entries"), ns, how)
}
