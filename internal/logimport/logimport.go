// Package logimport reads a log of an original program's output (a
// mail, a console log) as 'contend import' does: the log whole, the lines
// and records kept (--from, --to, --select, --unquote), the records'
// repetitions, and where the samples come from.
package logimport

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"

	"contend/internal/external"
	"contend/internal/results"
)

// MaxLog is the largest log read, in bytes.
const MaxLog = 64 << 20

// Options say which part of a log is read. Every error of Read is the
// user's input (a usage error), its text naming the flag or the file.
type Options struct {
	// From and To are the lines kept (1-based, inclusive); 0 is not
	// given.
	From, To int
	// Select, when Selected, keeps records N..M, N.., ..M or N of the
	// lines kept (from 1); else all are kept.
	Select   string
	Selected bool
	// Unquote strips mail quoting ("> ") from line starts.
	Unquote bool
}

// Log is a log read for import.
type Log struct {
	Path string // as given; "-" is stdin
	Sum  [sha256.Size]byte
	Opt  Options
	// Scan holds the records of the metrics Specs (the preset's or the
	// flags', as Scan returns them), Warnings what Scan said of them.
	Scan     *external.RecordScan
	Specs    []external.Spec
	Warnings []string
}

// Read reads the log at path ("-": stdin, else a file) and finds the
// records of specs in the part of it opt keeps, at least one.
func Read(path string, stdin *os.File, specs []external.Spec, opt Options) (*Log, error) {
	lo, hi := 0, 0
	var err error
	if opt.Selected {
		if lo, hi, err = external.ParseSelect(opt.Select); err != nil {
			return nil, err
		}
	}
	l := &Log{Path: path, Opt: opt}
	var text string
	if path == "-" {
		text, l.Sum, err = readAll(stdin, stdin.Name(), 0)
	} else {
		text, l.Sum, err = readFile(path)
	}
	if err != nil {
		return nil, err
	}
	text = strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\r\n", "\n")
	if opt.From > 0 || opt.To > 0 {
		if text, err = external.CutLines(text, opt.From, opt.To); err != nil {
			return nil, err
		}
	}
	if opt.Unquote {
		text = external.Unquote(text)
	}
	if l.Scan, l.Specs, l.Warnings, err = external.Scan(specs, text, lo, hi); err != nil {
		return nil, err
	}
	if l.Scan.Len() == 0 {
		return nil, fmt.Errorf("import: no match of %s (/%s/) in %s", l.Specs[0].Name, l.Specs[0].Regex, path)
	}
	return l, nil
}

// Config returns the configuration of the log's file: which log, which
// lines of it and which records were read say how the samples were
// taken, not what was measured: they are the configuration's environment
// (compare lists them as such), not parameters ("the change is partly
// theirs").
func (l *Log) Config() results.Config {
	cfg := results.Config{Env: map[string]string{"log.path": l.Path, "log.sha256": hex.EncodeToString(l.Sum[:])}}
	if l.Opt.From > 0 || l.Opt.To > 0 {
		cfg.Env["log.lines"] = lineRange(l.Opt.From, l.Opt.To)
	}
	if l.Opt.Selected {
		cfg.Env["log.select"] = l.Opt.Select
	}
	return cfg
}

// lineRange is --from and --to as a range of lines, an end not given
// left out ("51..60", "52..", "..60").
func lineRange(from, to int) string {
	r := ".."
	if from > 0 {
		r = strconv.Itoa(from) + r
	}
	if to > 0 {
		r += strconv.Itoa(to)
	}
	return r
}

// skip is the number of lines before the text read.
func (l *Log) skip() int { return max(l.Opt.From, 1) - 1 }

// Reps yields the repetition of each record, one Rep reused (its
// Metrics the record's, refilled each time), each counted in tally
// before it is yielded: the records go to the file one at a time.
func (l *Log) Reps(tally *results.Tally) iter.Seq[*results.Rep] {
	return reps(l.Scan, l.skip(), tally)
}

// AllReps returns the repetition of every record, each its own (for
// --format json, which prints them all), each counted in tally.
func (l *Log) AllReps(tally *results.Tally) []results.Rep {
	out := make([]results.Rep, 0, l.Scan.Len())
	l.Scan.Each(func(i int, r *external.Record) bool {
		rep := recordRep(i, r, l.skip())
		rep.Metrics = rep.Metrics.Clone()
		out = append(out, rep)
		tally.Add(&rep)
		return true
	})
	return out
}

func reps(scan *external.RecordScan, skip int, tally *results.Tally) iter.Seq[*results.Rep] {
	return func(yield func(*results.Rep) bool) {
		var rep results.Rep
		scan.Each(func(i int, r *external.Record) bool {
			rep = recordRep(i, r, skip)
			tally.Add(&rep)
			return yield(&rep)
		})
	}
}

// recordRep returns the repetition of record i, r: its metrics (r's
// Values, not a copy), its status, and as output "[line N]" (N counted
// from the first line of the log, skip lines before the text read) and
// its text. No Start: when a record of a log ran is not known (the
// file's start is the import's).
func recordRep(i int, r *external.Record, skip int) results.Rep {
	rep := results.Rep{Index: i, Round: i, Status: results.StatusOK, Metrics: r.Metrics}
	if r.Err != "" {
		rep.Status, rep.Error = results.StatusFailed, r.Err
	}
	rep.Output = "[line " + strconv.Itoa(r.Line+skip) + "]\n" + r.Text
	return rep
}

func readFile(path string) (string, [sha256.Size]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return "", [sha256.Size]byte{}, fmt.Errorf("%s: no such file", path)
		}
		return "", [sha256.Size]byte{}, err
	}
	defer fh.Close()
	size := int64(0)
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return "", [sha256.Size]byte{}, fmt.Errorf("%s: is a directory, not a log", path)
	} else if err == nil {
		size = st.Size()
	}
	return readAll(fh, fh.Name(), size)
}

// readAll reads r (named name) whole, at most MaxLog bytes, into a
// string of size (its length, when known) at once, and returns it with
// its SHA-256: the log is not copied again from bytes into a string (2.5
// MB for a log of 100,000 records).
func readAll(r io.Reader, name string, size int64) (string, [sha256.Size]byte, error) {
	var sb strings.Builder
	sb.Grow(int(min(max(size+1, 1<<16), MaxLog+1)))
	h := sha256.New()
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		sb.Write(buf[:n])
		h.Write(buf[:n])
		if sb.Len() > MaxLog {
			return "", [sha256.Size]byte{}, fmt.Errorf("%s: larger than %d MiB; cut it first", name, MaxLog>>20)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			// Not the log cut short in silence (and its SHA-256 wrong).
			return "", [sha256.Size]byte{}, fmt.Errorf("%s: cannot read the log: %v", name, err)
		}
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sb.String(), sum, nil
}
