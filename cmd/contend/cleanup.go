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
		Name:        "cleanup",
		Usage:       "remove SysV semaphore sets and restore tracefs settings left by contend runs that were killed",
		Description: desc("cleanup"),
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
