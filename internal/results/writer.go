package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"contend/internal/plural"
	"contend/internal/safefile"

	"golang.org/x/sys/unix"
)

// Mode says what Open does with a file that exists at its path.
type Mode int

// Modes of Open.
const (
	// ModeNew refuses an existing file (ErrExists).
	ModeNew Mode = iota
	// ModeReplace replaces an existing file (--replace): the new file is
	// written beside it and renamed over it once its first records are
	// durable, so that a failed write (disk full) leaves the old one.
	ModeReplace
	// ModeAppend adds the repetitions of a run of the same configurations
	// to an existing file (--append), and refuses another run
	// (ErrMismatch). A missing file is created.
	ModeAppend
)

// Errors of Open, for errors.Is.
var (
	ErrExists   = errors.New("result file exists")
	ErrLocked   = errors.New("result file is being written")
	ErrMismatch = errors.New("result file holds another run")
)

// Writer keeps a version-2 result file on disk up to date: each
// repetition is one appended line, written and fdatasync'ed by Add right
// after the repetition ends, so that nothing of it is left for the kernel
// to write back during the next repetition. The file is locked (flock)
// until Finish or Close, so that a second writer is refused.
type Writer struct {
	path string
	File *File
	fh   *os.File
	// size is the length of the whole records written; a failed write
	// is cut back to it.
	size int64
	// warned is how many of File.Warnings the file holds.
	warned  int
	unsaved []int
	err     error
	// more yields the repetitions of a new file after File.Reps
	// (OpenFrom), while it is written.
	more iter.Seq[*Rep]
}

// Create starts a new result file at path with f's header and
// repetitions; it refuses an existing file. It fails if the directory
// cannot be written, before anything runs.
func Create(path string, f *File) (*Writer, error) { return Open(path, f, ModeNew) }

// Open starts writing f to the result file at path, locked. An existing
// file is refused, replaced or appended to, as mode says; with
// ModeAppend, f becomes the file's contents (its repetitions so far and a
// Segment for this run), and its own repetitions are ignored. Stale
// temporary files of the result beside it (left by a killed contend) are
// removed.
func Open(path string, f *File, mode Mode) (*Writer, error) { return OpenFrom(path, f, mode, nil) }

// OpenFrom is Open, the new file's repetitions being f.Reps and then those
// reps yields (nil: none), each encoded before the next is asked for: the
// same bytes as Open of f holding them all, and as durable (one fdatasync
// at the end, nothing left of a file that fails), without holding them
// all (an import of 100,000 records reuses one Rep). The yielded
// repetitions are not added to File.Reps. ModeAppend takes no reps.
func OpenFrom(path string, f *File, mode Mode, reps iter.Seq[*Rep]) (*Writer, error) {
	if reps != nil && mode == ModeAppend {
		return nil, errors.New("results: repetitions are streamed into a new file only, not appended")
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the directory of result file %s: %w", path, err)
	}
	w := &Writer{path: path, File: f, more: reps}
	defer func() { w.more = nil }()
	// fresh: the file does not exist; w.fh is then a new temporary of
	// it, renamed into place (without replacing anything) once its
	// header is durable, so that a kill leaves either no file or a valid
	// one, never an empty one.
	fresh := false
	var real string
	var err error
	for moved := 0; ; moved++ {
		var exists bool
		if real, exists, err = target(path, mode); err != nil {
			return nil, err
		}
		if !exists {
			if mode != ModeNew && mode != ModeReplace && mode != ModeAppend {
				return nil, fmt.Errorf("results: unknown mode %d", mode)
			}
			removeStaleTemps(path)
			if w.fh, err = temporary(path, 0o644); err != nil {
				return nil, fmt.Errorf("cannot write result file %s: %w", path, err)
			}
			fresh = true
			break
		}
		switch mode {
		case ModeNew:
			return nil, existsError(path)
		case ModeReplace, ModeAppend:
			w.fh, err = openExisting(real)
		default:
			return nil, fmt.Errorf("results: unknown mode %d", mode)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot write result file %s: %w", path, err)
		}
		err = lock(w.fh, path)
		if err == nil {
			break
		}
		w.fh.Close()
		if err != errMoved {
			return nil, err
		}
		if moved == 10 {
			return nil, refuse(ErrLocked, "%s is being replaced by another process again and again; wait for it to end or give another --out", path)
		}
	}
	// replaced is the file --replace replaces (or an empty file that
	// --append fills), held locked until the new file is renamed over it;
	// w.fh is then the new file.
	var replaced *os.File
	if !fresh {
		// Only the holder of the lock removes temporary files of path: removed
		// by one that is then refused, a live writer's could go before it
		// had locked it. The file path names was resolved once (real): a
		// link changed while the file is written does not move the rename.
		removeStaleTemps(path)
		if real != path {
			removeStaleTemps(real)
		}
		st, err := w.fh.Stat()
		if err != nil {
			w.fh.Close()
			return nil, fmt.Errorf("cannot write result file %s: %w", path, err)
		}
		if st.Size() > 0 && !isResultFile(real) {
			w.fh.Close()
			return nil, notResultError(path)
		}
		if st.Size() > 0 && mode == ModeAppend {
			if err := w.openAppend(); err != nil {
				w.fh.Close()
				return nil, err
			}
			return w, nil
		}
		replaced = w.fh
		if w.fh, err = replacement(real, st); err != nil {
			replaced.Close()
			return nil, fmt.Errorf("cannot write result file %s: writing its replacement beside it: %w", path, err)
		}
	}
	f.Format, f.Version = FormatName, FormatVersion
	// Written in pieces, synced once: an import writes 100,000 records
	// here. The writeback of each piece is started as it is written
	// (sync_file_range, which waits for nothing), so that it goes on while
	// the next is encoded and the fdatasync at the end has less to wait
	// for (16 ms of 14 MB on this VM).
	err = w.encodeTo(func(b []byte) error {
		off := w.size
		if err := w.put(b); err != nil {
			return fmt.Errorf("cannot write result file %s: %w", path, err)
		}
		unix.SyncFileRange(int(w.fh.Fd()), off, int64(len(b)), unix.SYNC_FILE_RANGE_WRITE)
		return nil
	})
	if err == nil {
		if err = w.sync(); err != nil {
			err = fmt.Errorf("cannot write result file %s: %w", path, err)
		}
	}
	if err == nil && replaced != nil {
		// The new file's first records are durable: now it takes the
		// old one's place, locked as it was.
		if err = os.Rename(w.fh.Name(), real); err != nil {
			err = fmt.Errorf("cannot write result file %s: %w", path, err)
		}
	}
	if err == nil && fresh {
		// Into place, replacing nothing: a file made meanwhile at path
		// is refused as it would have been at the start.
		if err = placeNew(w.fh.Name(), path); errors.Is(err, os.ErrExist) {
			if mode == ModeNew {
				err = existsError(path)
			} else {
				err = refuse(ErrLocked, "%s was created by another process while this one wrote it; try again, or give another --out", path)
			}
		} else if err != nil {
			err = fmt.Errorf("cannot write result file %s: %w", path, err)
		}
		real = path
	}
	if err != nil {
		// Whatever was at path is as it was: only the new file goes.
		os.Remove(w.fh.Name())
		w.fh.Close()
		if replaced != nil {
			replaced.Close()
		}
		return nil, err
	}
	syncDir(filepath.Dir(real))
	if replaced != nil {
		replaced.Close()
	}
	return w, nil
}

// replacement creates the file that --replace writes beside the result
// file real (symbolic links resolved; st, its Stat): a temporary file of it
// (.NAME.tmp-*) in its directory, locked before anything is written, with
// the old file's permissions and, where allowed, its owner.
func replacement(real string, st os.FileInfo) (*os.File, error) {
	tmp, err := temporary(real, 0o600)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*os.File, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return fail(err)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		tmp.Chown(int(sys.Uid), int(sys.Gid)) // only root may; else the file is the writer's
	}
	return tmp, nil
}

// temporary creates a fresh temporary file of the result file path
// (.NAME.tmp-*, beside it: O_EXCL, no link followed, mode perm less the
// umask), locked (flock) before anything is written.
func temporary(path string, perm os.FileMode) (*os.File, error) {
	tmp, err := safefile.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-", "", perm)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(tmp.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return tmp, nil
}

// placeNew gives the file at tmp the name path, which must not exist
// (os.ErrExist): renameat2 with RENAME_NOREPLACE, or, on a file system
// without it, a hard link and the removal of tmp.
func placeNew(tmp, path string) error {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		if err = os.Link(tmp, path); err == nil {
			os.Remove(tmp)
		}
	}
	if errors.Is(err, unix.EEXIST) {
		return os.ErrExist
	}
	return err
}

// target says what Open will write for path: the file itself, or the
// regular file a symbolic link there names (real), and whether it exists.
// A link is followed only to an existing regular file, and only when
// the link is this user's or root's: a dangling link is refused (root
// would create its target, anywhere), and so is a link to anything else
// or another user's link. In a directory others may write (/tmp), a file
// of another user is refused too: contend does not append to or replace
// a file planted there.
func target(path string, mode Mode) (real string, exists bool, err error) {
	li, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("cannot write result file %s: %w", path, err)
	}
	real = path
	if li.Mode()&os.ModeSymlink != 0 {
		to, _ := os.Readlink(path)
		if sys, ok := li.Sys().(*syscall.Stat_t); ok && sys.Uid != uint32(os.Geteuid()) && sys.Uid != 0 {
			return "", false, refuse(ErrExists, "%s is a symbolic link of uid %d, not this user's: contend does not follow another user's link; give the file itself as --out", path, sys.Uid)
		}
		fi, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			return "", false, refuse(ErrExists, "%s is a symbolic link to %s, which does not exist: contend creates no file through a link; give the file itself as --out", path, to)
		}
		if err != nil {
			return "", false, fmt.Errorf("cannot write result file %s: %w", path, err)
		}
		if !fi.Mode().IsRegular() {
			return "", false, refuse(ErrExists, "%s is a symbolic link to %s, which is not a regular file: choose another --out", path, to)
		}
		if real, err = filepath.EvalSymlinks(path); err != nil {
			return "", false, fmt.Errorf("cannot write result file %s: %w", path, err)
		}
		li = fi
	}
	if !li.Mode().IsRegular() {
		return "", false, refuse(ErrExists, "%s exists and is not a regular file: choose another --out", path)
	}
	if sys, ok := li.Sys().(*syscall.Stat_t); ok && mode != ModeNew && sys.Uid != uint32(os.Geteuid()) && safefile.Shared(filepath.Dir(real)) {
		return "", false, refuse(ErrExists, "%s belongs to uid %d, in a directory others may write: contend does not append to or replace another user's file there; choose another --out", path, sys.Uid)
	}
	return real, true, nil
}

// openExisting opens the result file real (no link: target resolved
// it) for --append or --replace, refusing anything but a regular file.
func openExisting(real string) (*os.File, error) {
	fh, err := os.OpenFile(real, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		fh.Close()
		return nil, refuse(ErrExists, "%s is not a regular file: choose another --out", real)
	}
	return fh, nil
}

// realPath is path with symbolic links resolved (path itself when that
// fails): --replace renames the new file over the file a link names, not
// over the link.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// encodeChunk is the size of the pieces encodeTo hands on: a new file is
// written from one buffer of this size, reused, rather than from all of it
// in memory (an import of 100,000 records grew an 18 MB buffer and copied
// it on the way).
const encodeChunk = 1 << 20

// encodeTo encodes the header, the repetitions and, when the File is
// complete, its end (what a new file starts with), handing the bytes to
// out in pieces of about encodeChunk bytes, whole lines each. An error of
// out stops it and is returned.
func (w *Writer) encodeTo(out func([]byte) error) error {
	f := w.File
	head := *f
	head.Reps, head.Complete, head.End, head.Appends = nil, false, time.Time{}, nil
	head.Metrics = f.headerMetrics()
	b, err := json.Marshal(&head)
	if err != nil {
		return fmt.Errorf("cannot encode result file %s: %w", w.path, err)
	}
	b = append(b, '\n')
	w.warned = len(f.Warnings)
	b = slices.Grow(b, encodeChunk+encodeChunk/8)
	flush := func(final bool) error {
		if len(b) < encodeChunk && !(final && len(b) > 0) {
			return nil
		}
		err := out(b)
		b = b[:0]
		return err
	}
	// Segments and repetitions interleave as they were run.
	seg, i := 0, 0
	var e repEncoder
	add := func(r *Rep) error {
		for seg < len(f.Appends) && f.Appends[seg].FirstRep <= i {
			if b, err = appendRecord(b, record{Append: &f.Appends[seg]}); err != nil {
				return err
			}
			seg++
		}
		if b, err = e.appendRepLine(b, r); err != nil {
			return fmt.Errorf("repetition %d: %w", i, err)
		}
		i++
		return flush(false)
	}
	for k := range f.Reps {
		if err := add(&f.Reps[k]); err != nil {
			return err
		}
	}
	if w.more != nil {
		for r := range w.more {
			if err = add(r); err != nil {
				return err
			}
		}
	}
	for ; seg < len(f.Appends); seg++ {
		if b, err = appendRecord(b, record{Append: &f.Appends[seg]}); err != nil {
			return err
		}
	}
	if f.Complete {
		if b, err = appendRecord(b, record{End: &end{Time: f.End, Complete: true}}); err != nil {
			return err
		}
	}
	return flush(true)
}

// encodeAll is encodeTo into one buffer.
func (w *Writer) encodeAll() ([]byte, error) {
	var all []byte
	err := w.encodeTo(func(b []byte) error {
		all = append(all, b...)
		return nil
	})
	return all, err
}

// openAppend reads the locked existing file, checks that it holds a run of
// the same configurations as w.File, converts a version-1 file to version
// 2 (atomically), cuts a torn last record and appends a Segment record.
func (w *Writer) openAppend() error {
	b, err := readAll(w.fh)
	if err != nil {
		return fmt.Errorf("cannot read result file %s: %w", w.path, err)
	}
	old, good, err := parse(b)
	if err != nil {
		return refuse(ErrMismatch, "cannot append to %s: %v", w.path, err)
	}
	if err := old.SameRun(w.File); err != nil {
		return refuse(ErrMismatch, "cannot append to %s: %v; give another --out, or --replace to overwrite it", w.path, err)
	}
	seg := Segment{Command: w.File.Command, Start: w.File.Start, Contend: w.File.Contend, Label: w.File.Label, FirstRep: len(old.Reps)}
	for _, x := range w.File.Warnings {
		if !slices.Contains(old.Warnings, x) {
			old.Warnings = append(old.Warnings, x)
		}
	}
	*w.File = *old
	if old.Version == 1 {
		if err := w.convert(); err != nil {
			return err
		}
	} else {
		w.size = int64(good)
		w.warned = len(old.Warnings)
		if err := w.fh.Truncate(w.size); err != nil {
			return fmt.Errorf("cannot write result file %s: %w", w.path, err)
		}
	}
	w.File.Complete, w.File.End = false, time.Time{}
	w.File.Appends = append(w.File.Appends, seg)
	var rec []byte
	if old.Version != 1 && good > 0 && b[good-1] != '\n' {
		// The last record is whole but its newline was not written (a
		// run killed between the two): end its line first.
		rec = append(rec, '\n')
	}
	b, err = appendRecord(rec, record{Append: &seg})
	if err != nil {
		return err
	}
	if err := w.write(b); err != nil {
		return fmt.Errorf("cannot write result file %s: %w", w.path, err)
	}
	return nil
}

// convert rewrites a version-1 file as version 2: a temporary file,
// locked before it is written, renamed over the old one, so that the lock
// goes with it and a killed contend leaves either file whole.
func (w *Writer) convert() error {
	w.File.Version = FormatVersion
	complete := w.File.Complete
	b, err := w.encodeAll()
	if err != nil {
		return err
	}
	w.File.Complete = complete
	st, err := w.fh.Stat()
	if err != nil {
		return fmt.Errorf("cannot write result file %s: %w", w.path, err)
	}
	// As --replace: beside the file a symbolic link names, with its
	// permissions (it was renamed over the link, with mode 0644).
	real := realPath(w.path)
	tmp, err := replacement(real, st)
	if err != nil {
		return fmt.Errorf("cannot write result file %s: %w", w.path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write result file %s: %w", w.path, err)
	}
	if _, err := tmp.Write(b); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), real); err != nil {
		return fail(err)
	}
	syncDir(filepath.Dir(real))
	w.fh.Close()
	w.fh, w.size = tmp, int64(len(b))
	return nil
}

// Path returns the file's path.
func (w *Writer) Path() string { return w.path }

// Add appends rep to the File and its line to the file. After a failed
// write (disk full) the file is cut back to its last whole record, rep
// and every later one are listed by Unsaved, and the error is returned.
func (w *Writer) Add(rep Rep) error {
	w.File.Reps = append(w.File.Reps, rep)
	if w.err == nil {
		b, err := appendRecord(nil, record{Rep: &rep})
		if err != nil {
			err = fmt.Errorf("repetition %d: %w", rep.Index, err)
		} else if err = w.write(b); err != nil {
			err = fmt.Errorf("cannot write result file %s: %w", w.path, err)
		}
		w.err = err
	}
	if w.err != nil {
		w.unsaved = append(w.unsaved, rep.Index)
		return w.err
	}
	return nil
}

// Unsaved returns the indices of the repetitions in File that the file
// does not hold (a write failed).
func (w *Writer) Unsaved() []int { return w.unsaved }

// Err returns the write error that left repetitions unsaved, or nil.
func (w *Writer) Err() error { return w.err }

// Finish records the end time and completeness, then closes the file.
func (w *Writer) Finish(end time.Time, complete bool) error {
	w.File.End = end
	w.File.Complete = complete
	// What reads the File from here (the run's summary, ab's comparison)
	// sees a family's members, as a reader of the file would.
	w.File.ExpandFamilies()
	if w.fh == nil {
		return errors.New("results: Finish of a closed Writer")
	}
	defer w.Close()
	if w.err != nil {
		return w.err
	}
	e := endRecord(w.File, w.warned)
	b, err := appendRecord(nil, record{End: &e})
	if err == nil {
		err = w.write(b)
	}
	if err != nil {
		return fmt.Errorf("cannot write result file %s: %w", w.path, err)
	}
	return nil
}

func endRecord(f *File, warned int) end {
	e := end{Time: f.End, Complete: f.Complete}
	if warned < len(f.Warnings) {
		e.Warnings = f.Warnings[warned:]
	}
	return e
}

// Close closes the file and drops its lock, without an end record (the
// file then reads as incomplete).
func (w *Writer) Close() error {
	if w.fh == nil {
		return nil
	}
	err := w.fh.Close()
	w.fh = nil
	return err
}

// write writes b at the end of the whole records and fdatasyncs it; on
// failure the file is cut back to its last whole record.
func (w *Writer) write(b []byte) error {
	size := w.size
	err := w.put(b)
	if err == nil {
		err = w.sync()
	}
	if err != nil {
		w.size = size
		if w.fh != nil {
			w.fh.Truncate(size)
		}
		return err
	}
	return nil
}

// put writes b at the end of the whole records and counts it in, without
// syncing: the caller syncs, and cuts the file back on failure.
func (w *Writer) put(b []byte) error {
	if w.fh == nil {
		return errors.New("the file is closed")
	}
	if _, err := writeAt(w.fh, b, w.size); err != nil {
		return err
	}
	w.size += int64(len(b))
	return nil
}

// sync fdatasyncs the file.
func (w *Writer) sync() error { return unix.Fdatasync(int(w.fh.Fd())) }

// writeAt is (*os.File).WriteAt; tests make it fail (disk full).
var writeAt = (*os.File).WriteAt

// appendRepLine appends the line of repetition r to b, as appendRecord
// does.
func (e *repEncoder) appendRepLine(b []byte, r *Rep) ([]byte, error) {
	if err := checkFinite(r); err != nil {
		return b, err
	}
	n := len(b)
	b, err := e.appendRep(b, r)
	if err != nil {
		return b[:n], err
	}
	return append(b, '\n'), nil
}

// appendRecord appends r's line to b.
func appendRecord(b []byte, r record) ([]byte, error) {
	if r.Rep != nil {
		if err := checkFinite(r.Rep); err != nil {
			return b, err
		}
	}
	x, err := json.Marshal(r)
	if err != nil {
		return b, err
	}
	b = append(b, x...)
	return append(b, '\n'), nil
}

func checkFinite(r *Rep) error {
	for k, v := range r.Metrics.All() {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("metric %s is %v", k, v)
		}
	}
	return nil
}

// Marshal encodes f as one indented JSON document (version 1, what
// --format json prints), refusing NaN and Inf values with a clear error
// instead of encoding/json's.
func Marshal(f *File) ([]byte, error) {
	for i := range f.Reps {
		if err := checkFinite(&f.Reps[i]); err != nil {
			return nil, fmt.Errorf("repetition %d: %v", i, err)
		}
	}
	g := *f
	g.Format, g.Version = FormatName, 1
	g.Metrics = f.headerMetrics()
	b, err := json.MarshalIndent(&g, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// MarshalLines encodes f as a version-2 file.
func MarshalLines(f *File) ([]byte, error) {
	g := *f
	g.Format, g.Version = FormatName, FormatVersion
	w := &Writer{File: &g}
	b, err := w.encodeAll()
	if err != nil {
		return nil, err
	}
	if !g.Complete && !g.End.IsZero() {
		b, err = appendRecord(b, record{End: &end{Time: g.End}})
	}
	return b, err
}

// SameRun says how g's run differs from f's in what decides the
// measurement (kind, workload, build, configurations, metrics), or nil when
// g's repetitions can be appended to f.
func (f *File) SameRun(g *File) error {
	switch {
	case f.Kind != g.Kind:
		return fmt.Errorf("it holds %s %s, not %s %s", article(f.Kind), f.Kind, article(g.Kind), g.Kind)
	case f.Workload != g.Workload:
		return fmt.Errorf("it holds workload %s, not %s", f.Workload, g.Workload)
	case f.Native != g.Native:
		return fmt.Errorf("its native code hash is %s, this contend's is %s (another build)", f.Native, g.Native)
	case f.Primary != g.Primary:
		return fmt.Errorf("its primary metric is %s, not %s", f.Primary, g.Primary)
	case len(f.Configs) != len(g.Configs):
		return fmt.Errorf("it holds %d configurations, this run %d", len(f.Configs), len(g.Configs))
	}
	for i := range f.Configs {
		a, _ := json.Marshal(f.Configs[i])
		b, _ := json.Marshal(g.Configs[i])
		if !bytes.Equal(a, b) {
			return fmt.Errorf("its configuration %q differs from this run's %q", f.ConfigName(i), g.ConfigName(i))
		}
	}
	for _, m := range g.Metrics {
		if o, ok := f.Metric(m.Name); !ok || o.Unit != m.Unit {
			return fmt.Errorf("it has no metric %s in %s", m.Name, m.Unit)
		}
	}
	if (f.Sweep == nil) != (g.Sweep == nil) || f.Sweep != nil && !slices.Equal(f.Sweep.Params, g.Sweep.Params) {
		return errors.New("its swept parameters differ")
	}
	return nil
}

// refusal is an error of Open that errors.Is finds as its kind.
type refusal struct {
	kind error
	msg  string
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.kind }

func refuse(kind error, format string, a ...any) error {
	return &refusal{kind, fmt.Sprintf(format, a...)}
}

// existsError says that path exists and what it holds.
func existsError(path string) error {
	what := "a file"
	if fh, err := os.Open(path); err == nil {
		if unix.Flock(int(fh.Fd()), unix.LOCK_SH|unix.LOCK_NB) != nil {
			fh.Close()
			return refuse(ErrLocked, "%s is being written by %s; wait for it to end or give another --out", path, lockHolder(path))
		}
		if b, err := readAll(fh); err == nil {
			if f, err := Parse(b); err == nil {
				what = "a result file of " + plural.N(len(f.Reps), "repetition", "repetitions") + " of " + f.Workload
			} else if len(b) > 0 && !isResultFile(path) {
				fh.Close()
				return notResultError(path)
			}
		}
		fh.Close()
	}
	return refuse(ErrExists, "%s exists (%s); give --append to add repetitions to it, --replace to overwrite it, or another --out", path, what)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// isResultFile says whether the file at path starts as a contend result
// file does (a JSON header or document naming FormatName), torn or
// corrupt further on or not: only such a file is ever replaced or
// appended to.
func isResultFile(path string) bool {
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	var head struct {
		Format string `json:"format"`
	}
	if err := json.NewDecoder(fh).Decode(&head); err != nil {
		return false
	}
	return head.Format == FormatName
}

// notResultError refuses path, an existing file that is not a result file.
func notResultError(path string) error {
	return refuse(ErrExists, "%s exists and is not a contend result file, which contend never replaces or appends to; choose another --out", path)
}

// article returns "an" before a word that starts with a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
