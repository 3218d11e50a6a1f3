package results

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"contend/internal/safefile"
)

// lock takes the exclusive flock of a result file being written, or says
// who holds it.
func lock(fh *os.File, path string) error {
	if err := unix.Flock(int(fh.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if err == unix.EWOULDBLOCK {
			return refuse(ErrLocked, "%s is being written by %s; wait for it to end or give another --out", path, lockHolder(path))
		}
		return fmt.Errorf("cannot lock result file %s: %w", path, err)
	}
	// --replace writes the new file beside the old one and renames it
	// over the old one while it holds both locked, then lets the old one
	// go: a lock then taken on the old file, opened before the rename,
	// locks a file no longer at path. Such a lock is dropped and the
	// caller opens path again (errMoved). So is a lock of a file removed
	// meanwhile (a new file whose first write failed).
	var have, now unix.Stat_t
	if unix.Fstat(int(fh.Fd()), &have) != nil {
		return nil
	}
	if err := unix.Stat(path, &now); err == unix.ENOENT || (err == nil && (have.Dev != now.Dev || have.Ino != now.Ino)) {
		unix.Flock(int(fh.Fd()), unix.LOCK_UN)
		return errMoved
	}
	return nil
}

// errMoved says that the file locked is no longer the one at its path
// (another writer renamed a new file over it, or removed it): open the
// path again.
var errMoved = errors.New("result file replaced while it was being opened")

// lockHolder names the process holding the flock of path ("pid 123:
// contend run faultme ..."), from /proc/locks, or "another process".
func lockHolder(path string) string {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return "another process"
	}
	fh, err := os.Open("/proc/locks")
	if err != nil {
		return "another process"
	}
	defer fh.Close()
	dev := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		// 1: FLOCK  ADVISORY  WRITE 1234 fd:00:5678 0 EOF
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[5] != dev {
			continue
		}
		pid, err := strconv.Atoi(fs[4])
		if err != nil || pid <= 0 {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		args := strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " "))
		if len(args) > 8 {
			args = append(args[:8], "...")
		}
		if len(args) == 0 {
			return fmt.Sprintf("pid %d", pid)
		}
		return fmt.Sprintf("pid %d (%s)", pid, strings.Join(args, " "))
	}
	return "another process"
}

// removeStaleTemps removes the temporary files of the result file path
// (.NAME.tmp-*) that no live writer holds locked: a contend killed while
// rewriting a file leaves one, and nothing else would remove it.
func removeStaleTemps(path string) {
	dir, prefix := filepath.Dir(path), "."+filepath.Base(path)+".tmp-"
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() {
			continue
		}
		t := filepath.Join(dir, e.Name())
		fh, err := safefile.Open(t, os.O_RDONLY, safefile.Self) // never another user's
		if err != nil {
			continue
		}
		if unix.Flock(int(fh.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			os.Remove(t)
		}
		fh.Close()
	}
}
