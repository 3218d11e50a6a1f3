package results

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"sync"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readChunk is the size of the pieces readFile reads a large file in (its
// buffer is twice that: fresh memory, pages faulted in, which 1 MiB pieces
// made 4 MiB of compare's 8 of allocations for 2 x 100,000 samples), and
// readWholeMax the size up to which it reads a file at once (variables for
// the tests).
var (
	readChunk    = 1 << 18
	readWholeMax = 4 << 20
)

// errChanged makes readFile read a file again at once: it changed between
// its two passes.
var errChanged = errors.New("the file changed while it was read")

// readFile reads and checks the result file open in fh, as Parse reads
// its bytes. A large version-2 file is read in pieces of readChunk bytes,
// each decoded as it comes (the repetitions into one array, sized by a
// first pass that counts the lines): the pages of a copy of the whole file
// cost more than decoding it (100,000 repetitions make 14 MB, 3,400 pages
// faulted in).
func readFile(fh *os.File, outputs, cols bool) (*File, error) {
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, errors.New("is a directory, not a result file")
	}
	if size := st.Size(); size > int64(readWholeMax) && size <= MaxFileSize {
		if cols {
			f, err := readPieces(fh, int(size), outputs, true)
			if !errors.Is(err, errChanged) {
				return f, err
			}
		}
		f, err := readPieces(fh, int(size), outputs, false)
		if !errors.Is(err, errChanged) {
			return f.intoColumns(cols), err
		}
	}
	b, err := readAll(fh)
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if err == nil && !outputs {
		for i := range f.Reps {
			f.Reps[i].Output = ""
		}
	}
	return f.intoColumns(cols), err
}

// intoColumns moves f's repetitions into its Columns when cols is true.
func (f *File) intoColumns(cols bool) *File {
	if f != nil && cols {
		f.cols, f.Reps = ColumnsOf(f.Reps), nil
	}
	return f
}

// readPieces reads the first size bytes of the file open in fh when it is
// a version-2 file: first the header line and the number of lines, then
// the lines, decoded a piece at a time. It returns errChanged when the
// file is not version 2 or changed under it: then the caller reads it at
// once.
//
// With cols, the repetitions go straight into the File's Columns, never
// into a Rep array; errChanged then also means that the file is not of
// the shape this reads so (a header holding repetitions, a metric it
// does not describe, repeated indexes, a header that does not decode):
// the caller reads it the other way, which gives the same File or error.
func readPieces(fh *os.File, size int, outputs, cols bool) (*File, error) {
	// One buffer for both passes, room for a piece after a cut line,
	// kept for the next file (compare reads two, one after the other):
	// nothing read from the file refers to it.
	buf := readBuffer()
	defer func() { readBufs.Put(&buf) }()
	read := func(off, n int) ([]byte, error) {
		buf = slices.Grow(buf[:0], n)[:n]
		if m, err := fh.ReadAt(buf, int64(off)); m < n {
			if err == io.EOF {
				err = errChanged
			}
			return nil, err
		}
		return buf, nil
	}
	// The header line, and the lines after it.
	var head []byte
	nlines := 0
	for off := 0; off < size; {
		p, err := read(off, min(readChunk, size-off))
		if err != nil {
			return nil, err
		}
		off += len(p)
		if head == nil {
			i := bytes.IndexByte(p, '\n')
			if i < 0 || !versionTwoHeader(p[:i]) {
				return nil, errChanged // a long header, or not version 2: read at once
			}
			head, p = bytes.Clone(p[:i+1]), p[i+1:]
		}
		nlines += bytes.Count(p, []byte("\n"))
		if off == size && len(p) > 0 && p[len(p)-1] != '\n' {
			nlines++ // the last line, without newline
		}
	}
	if !utf8.Valid(head) {
		return nil, errNotUTF8
	}
	if cols {
		return readColumns(fh, head, size, nlines, buf, outputs)
	}
	// The lines, a piece at a time: the whole lines of what is read, the
	// rest (a line cut by the end of the piece) kept for the next.
	reps := newReps(nlines)
	var others []otherLine
	valid := true
	window := buf[:0]
	base := 0 // the line window starts with
	for off := len(head); off < size || len(window) > 0; {
		var whole int
		var err error
		if window, off, whole, err = readPiece(fh, window, off, size); err != nil {
			return nil, err
		}
		if whole == 0 {
			continue // a line longer than the piece: read on
		}
		lines := countLines(window[:whole])
		if base+lines > nlines {
			return nil, errChanged
		}
		o, v := decodeRanges(window[:whole], reps[base:base+lines], outputs)
		for i := range o {
			o[i].index += base
		}
		others, valid, base = append(others, o...), valid && v, base+lines
		window = window[:copy(window, window[whole:])]
	}
	if base != nlines {
		return nil, errChanged
	}
	if !valid {
		return nil, errNotUTF8
	}
	f, err := parseHeader(head)
	if err != nil {
		return nil, err
	}
	if _, err := f.assemble(reps, others, size); err != nil {
		return nil, err
	}
	return f, nil
}

// readBufs holds a buffer of readPieces for the next.
var readBufs sync.Pool

// readBuffer returns an empty buffer of 2*readChunk bytes or more, the
// last file's when there is one.
func readBuffer() []byte {
	if p, ok := readBufs.Get().(*[]byte); ok && cap(*p) >= 2*readChunk {
		return (*p)[:0]
	}
	return make([]byte, 0, 2*readChunk)
}

// newReps returns n zero repetitions, their pages faulted in at once
// (prefault) before the decoders fill them.
func newReps(n int) []Rep {
	reps := make([]Rep, n)
	if n > 0 {
		prefault(unsafe.Slice((*byte)(unsafe.Pointer(&reps[0])), n*int(unsafe.Sizeof(reps[0]))))
	}
	return reps
}

// prefault asks the kernel to fault in the whole pages of b, writable,
// in one call (MADV_POPULATE_WRITE, Linux 5.14; ignored where it is not
// known): on this VM that costs half of faulting them one by one. A large
// array fresh from the kernel is not zeroed by Go, and a garbage
// collection that scans it before the decoders reach its end read its
// pages first: each was then faulted in twice (the zero page, then its
// own), 3,000 to 5,000 more faults in a compare of two files of 100,000
// repetitions. b's contents are left as they are (zero).
func prefault(b []byte) {
	const page = 4096
	start := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + page - 1) &^ (page - 1)
	end := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b))) &^ (page - 1)
	if end <= start || end-start < 16*page {
		return
	}
	off := int(start - uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	unix.Madvise(b[off:off+int(end-start)], unix.MADV_POPULATE_WRITE)
}

// readColumns is readPieces into Columns: head is the header line, then
// nlines lines up to size, read a piece at a time with buf.
func readColumns(fh *os.File, head []byte, size, nlines int, buf []byte, outputs bool) (*File, error) {
	f, err := parseHeader(head)
	if err != nil || len(f.Reps) > 0 {
		return nil, errChanged
	}
	names := make([]string, len(f.Metrics))
	for i, m := range f.Metrics {
		names[i] = m.Name
	}
	// A file of one configuration (an import, a run) most likely numbers
	// its rows 0, 1, 2...: their index, configuration and round are
	// left implicit, not decoded into columns compact would drop.
	d := &repDst{cols: newColumns(nlines, names, len(f.Configs) > 1)}
	var others []otherLine
	valid := true
	window := buf[:0]
	for off := len(head); off < size || len(window) > 0; {
		var whole int
		var err error
		if window, off, whole, err = readPiece(fh, window, off, size); err != nil {
			return nil, err
		}
		if whole == 0 {
			continue // a line longer than the piece: read on
		}
		lines := countLines(window[:whole])
		if d.base+lines > nlines {
			return nil, errChanged
		}
		o, v := decodeInto(window[:whole], lines, d, outputs)
		for i := range o {
			o[i].index += d.base
		}
		others, valid, d.base = append(others, o...), valid && v, d.base+lines
		window = window[:copy(window, window[whole:])]
	}
	if d.base != nlines || d.other {
		return nil, errChanged
	}
	if !valid || !utf8.Valid(head) {
		return nil, errNotUTF8
	}
	c := d.cols
	c.merge(d.found)
	var ranges [][2]int
	if _, err := f.assembleLines(nlines, others, size, func(from, to int) { ranges = append(ranges, [2]int{from, to}) }); err != nil {
		return nil, err
	}
	c.keep(ranges)
	c.compact()
	for i := range c.Len() {
		if c.Index(i) != i {
			return nil, errChanged // maybe an index twice: dropRepeated
		}
	}
	f.cols = c
	f.importProvenance()
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

// readPiece reads the next piece of the file (from off, of size bytes)
// after what window holds of the last one, and returns the window, the
// offset read to, and the length of the window's whole lines: all of it
// at the end of the file, 0 for a line longer than the piece (read on).
func readPiece(fh io.ReaderAt, window []byte, off, size int) ([]byte, int, int, error) {
	if off < size {
		n := min(readChunk, size-off)
		window = slices.Grow(window, n)
		m, err := fh.ReadAt(window[len(window):len(window)+n], int64(off))
		if m < n {
			if err == io.EOF {
				err = errChanged
			}
			return nil, off, 0, err
		}
		window, off = window[:len(window)+n], off+n
	}
	whole := len(window)
	if off < size {
		whole = bytes.LastIndexByte(window, '\n') + 1
	}
	return window, off, whole, nil
}
