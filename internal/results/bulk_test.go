package results

import (
	"bytes"
	"contend/internal/testsize"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bulkFile is a complete file of n repetitions the size an import writes,
// without start times (imported records have none), with an append
// segment in the middle.
func bulkFile(n int) *File {
	f := sampleFile()
	for i := range n {
		r := benchRep(i)
		r.Start = time.Time{}
		f.Reps = append(f.Reps, r)
	}
	f.Appends = []Segment{{Command: []string{"contend", "run", "--append"}, Start: f.Start, FirstRep: n / 2}}
	f.End, f.Complete = f.Start.Add(time.Hour), true
	return f
}

// TestCreateLargeInPieces: a file of many repetitions, written by Create
// in pieces of encodeChunk bytes, holds exactly what MarshalLines encodes
// in one buffer, and reads back the same.
func TestCreateLargeInPieces(t *testing.T) {
	f := bulkFile(30000)
	want, err := MarshalLines(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 3*encodeChunk {
		t.Fatalf("the file (%d bytes) is not several pieces of %d", len(want), encodeChunk)
	}
	pieces := 0
	defer func() { writeAt = (*os.File).WriteAt }()
	writeAt = func(fh *os.File, b []byte, off int64) (int, error) {
		pieces++
		return fh.WriteAt(b, off)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	w, err := Create(path, f)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the file written in pieces (%d bytes) differs from MarshalLines (%d bytes)", len(got), len(want))
	}
	if pieces < len(want)/(2*encodeChunk) || pieces > len(want)/encodeChunk+1 {
		t.Errorf("%d bytes written in %d pieces, want pieces of about %d bytes", len(want), pieces, encodeChunk)
	}
	back, err := Read(path)
	if err != nil || len(back.Reps) != len(f.Reps) || !back.Complete || len(back.Appends) != 1 {
		t.Fatalf("read back: %v, %d repetitions, complete %v", err, len(back.Reps), back.Complete)
	}
	for i, r := range back.Reps {
		if !r.Start.IsZero() || r.Output != f.Reps[i].Output || r.Metrics.Get("time") != f.Reps[i].Metrics.Get("time") {
			t.Fatalf("repetition %d read back as %+v, written %+v", i, r, f.Reps[i])
		}
	}
	if strings.Contains(string(got), `"start":"0001`) {
		t.Error("a zero start time is written; it should be left out")
	}
}

// TestCreateFailingMidwayLeavesNothing: when a write fails after some
// pieces of a new file were written (disk full), Create removes the file,
// and Open --replace leaves the old file as it was (it left it empty) and
// no part of the new one.
func TestCreateFailingMidwayLeavesNothing(t *testing.T) {
	f := bulkFile(30000)
	defer func() { writeAt = (*os.File).WriteAt }()
	writes := 0
	writeAt = func(fh *os.File, b []byte, off int64) (int, error) {
		if writes++; writes == 3 {
			n, _ := fh.WriteAt(b[:len(b)/2], off)
			return n, syscall.ENOSPC
		}
		return fh.WriteAt(b, off)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if _, err := Create(path, f); !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "cannot write result file") {
		t.Fatalf("Create: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the new file is left after the failure: %v", err)
	}
	old := `{"format":"contend-result","version":2}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	writes = 0
	if _, err := Open(path, f, ModeReplace); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Open --replace: %v", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != old {
		t.Errorf("the file --replace failed to replace: %v, %q; want it as it was, %q", err, b, old)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
}

// TestReadInPiecesSameAsParse: Read, which reads a large file in pieces
// and decodes each as it comes, reads every file (testFiles) as Parse
// reads its bytes, with pieces cutting lines anywhere and lines longer
// than a piece; a file that changes under it is read again at once.
func TestReadInPiecesSameAsParse(t *testing.T) {
	defer func(c, w int) { readChunk, readWholeMax = c, w }(readChunk, readWholeMax)
	rng := rand.New(rand.NewPCG(43, 44))
	path := filepath.Join(t.TempDir(), "r.json")
	pieces, outputs := 0, 0
	trials := testsize.Pick(40, 300)
	for trial := range trials {
		for k, b := range testFiles(t, rng, trial) {
			readChunk, readWholeMax = 16+rng.IntN(600), rng.IntN(100)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			got, gerr := Read(path)
			want, werr := Parse(b)
			if werr != nil {
				werr = fmt.Errorf("%s: %v", path, werr)
			}
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d file %d, pieces of %d: Read %v %v\nParse %v %v\nfile %q", trial, k, readChunk, gerr, got, werr, want, b)
			}
			// Without outputs: the same, every output empty.
			lean, lerr := Read(path, WithoutOutputs)
			if want != nil {
				for i := range want.Reps {
					outputs += len(want.Reps[i].Output)
					want.Reps[i].Output = ""
				}
			}
			if fmt.Sprint(lerr) != fmt.Sprint(werr) || !reflect.DeepEqual(lean, want) {
				t.Fatalf("trial %d file %d, pieces of %d, without outputs: Read %v %v\nParse %v %v\nfile %q", trial, k, readChunk, lerr, lean, werr, want, b)
			}
			if len(b) > readWholeMax && versionTwoHeader(b[:max(0, bytes.IndexByte(b, '\n'))]) {
				pieces++
			}
		}
	}
	if pieces < 10*trials/3 || outputs == 0 {
		t.Errorf("only %d files were read in pieces, %d bytes of outputs", pieces, outputs)
	}
	// A file that shrinks between the passes is read again at once.
	f := bulkFile(2000)
	b, _ := MarshalLines(f)
	readChunk, readWholeMax = 4096, 1000
	os.WriteFile(path, b, 0o644)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := readPieces(fh, len(b)+100, true, false); !errors.Is(err, errChanged) {
		t.Errorf("a file shorter than its size: %v, want errChanged", err)
	}
}
