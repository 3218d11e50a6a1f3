package tracejournal

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// statRoot is os.Stat, replaced by tests to be refused as a user is.
var statRoot = os.Stat

// NotPermitted is FindRoot's error when tracefs is there but this user may
// not read it (as a user other than root, where it is mounted mode 0700 by
// default): what was refused, the mode and owner, and what to do.
func NotPermitted(root string) error {
	// The uid, not the user's name: os/user would take cgo into
	// every importer (contend-plot, through internal/report, has none).
	who := "uid " + strconv.Itoa(os.Getuid())
	mode := ""
	if st, err := os.Stat(root); err == nil {
		mode = fmt.Sprintf(" (mode %04o", st.Mode().Perm())
		if s, ok := st.Sys().(*syscall.Stat_t); ok {
			mode += fmt.Sprintf(", owner uid %d", s.Uid)
		}
		mode += ")"
	}
	return fmt.Errorf("tracefs at %s%s may not be read by %s: trace events need root; run contend as root (such as with sudo), or leave the lock evidence out", root, mode, who)
}
