package campaign

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Magic numbers of statfs(2) for file systems that live in memory.
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

// Volatile reports whether dir (or, when it does not exist yet, its
// nearest existing parent) is on a file system that a reboot empties
// (tmpfs, ramfs): a campaign there would lose its plan and ledger at its
// first reboot. fs names the file system; err is set when no parent
// could be examined.
func Volatile(dir string) (fs string, volatile bool, err error) {
	p, err := filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	for {
		var st unix.Statfs_t
		err := unix.Statfs(p, &st)
		if err == nil {
			switch uint64(st.Type) {
			case tmpfsMagic:
				return "tmpfs", true, nil
			case ramfsMagic:
				return "ramfs", true, nil
			}
			return "", false, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", false, err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false, err
		}
		p = parent
	}
}
