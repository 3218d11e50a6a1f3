// Package results reads and writes contend's result files: what ran
// (workload, parameters, command line, environment) and every repetition,
// finished or not.
//
// Version 2, written since, is JSON lines: a header line (a File without
// repetitions), then one record per line: {"rep":{...}} for each
// repetition as it ends, {"append":{...}} where a later run added
// repetitions (--append), {"end":{...}} where a run ended. Appending a
// repetition writes only its line, so a killed run leaves every finished
// repetition; a torn last line (killed or disk full mid-write) is dropped
// with a warning when read. Version 1, a single JSON document rewritten
// atomically after each repetition, is still read, and Marshal writes it
// (--format json prints one document).
package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// FormatName and FormatVersion identify result files. FormatVersion is
// the version written (JSON lines); version 1 (one document) is still read.
const (
	FormatName    = "contend-result"
	FormatVersion = 2
)

// MaxFileSize bounds what Read accepts, so a wrong file cannot exhaust
// memory.
const MaxFileSize = 256 << 20

// Status of a repetition.
const (
	StatusOK          = "ok"
	StatusFailed      = "failed"
	StatusTimeout     = "timeout"
	StatusInterrupted = "interrupted"
)

// File is one result file.
type File struct {
	Format   string    `json:"format"`
	Version  int       `json:"version"`
	Contend  string    `json:"contend_version"`
	Native   string    `json:"native_hash"`
	Kind     string    `json:"kind"` // run, ab, sweep, exec, import
	Command  []string  `json:"command"`
	Workload string    `json:"workload"`
	Label    string    `json:"label,omitempty"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end,omitzero"`
	// Complete is true when the run ended normally, false while it runs
	// and after an interruption. A version-2 file says it in its end
	// record ({"end": {"complete": true}}), never in its header line,
	// where it would read false for a finished run (files written before
	// say "complete": false there; it is ignored); a version-1 document
	// has it only when true.
	Complete bool `json:"complete,omitempty"`

	// Metrics describes every metric the repetitions may carry.
	Metrics []Metric `json:"metrics"`
	Primary string   `json:"primary"`
	// Configs are the configurations run: one for `run`, two (a, b) for
	// `ab`, one per point for `sweep`.
	Configs []Config `json:"configs"`

	Env      map[string]string `json:"env"`
	Warnings []string          `json:"warnings,omitempty"`
	// Evidence maps each kernel evidence collector asked for to
	// "available" or "not available: REASON" (see internal/evidence).
	Evidence map[string]string `json:"evidence,omitempty"`
	// Sweep describes a sweep's plan (kind "sweep" only).
	Sweep *Sweep `json:"sweep,omitempty"`
	// Appends records each later run that added repetitions (--append).
	Appends []Segment `json:"appends,omitempty"`
	Reps    []Rep     `json:"reps"`

	// Repeated lists the repetition indexes the file holds more than
	// once (a line written twice, files joined by hand): only the first
	// record of each is in Reps, and Warnings says so. Set by the
	// readers, never written.
	Repeated []RepeatedRep `json:"-"`

	// cols holds the repetitions of a file read AsColumns (Reps is then
	// nil); see Columns.
	cols *Columns
	// families are the metric families ExpandFamilies replaced by their
	// members in Metrics: kept for the header, so that repetitions added
	// later (--append) may carry members not seen yet.
	families []Metric
}

// RepeatedRep is a repetition index found in more than one record.
type RepeatedRep struct {
	Index int
	Count int // how many records
	// Lines are the file's lines (from 1, the header's) of its records;
	// nil for a version-1 document.
	Lines []int
	// Differ tells that the records are not the same: which one is right
	// is unknown (compare refuses the file).
	Differ bool
}

// Segment is a later run that appended repetitions to a file: its command
// line, when it started, the contend that ran it, and the index of its
// first repetition.
type Segment struct {
	Command  []string  `json:"command"`
	Start    time.Time `json:"start"`
	Contend  string    `json:"contend_version,omitempty"`
	Label    string    `json:"label,omitempty"`
	FirstRep int       `json:"first_rep"`
}

// Sweep is what a sweep file records beyond its configurations: which
// parameters vary across the points, how repetitions were ordered, and
// which metric holds the throughput. The order actually run is in the
// repetitions (Index, Round, Config).
type Sweep struct {
	// Params are the swept parameters, in the order given.
	Params []string `json:"params"`
	// Order is "shuffled" (each round in a random order, from Seed) or
	// "fixed" (each round in the points' order).
	Order string `json:"order"`
	Seed  int64  `json:"seed,omitempty"`
	// Rounds and WarmupRounds are the planned numbers of rounds.
	Rounds       int `json:"rounds"`
	WarmupRounds int `json:"warmup_rounds,omitempty"`
	// Throughput names the metric holding work per second, "" when the
	// workload has none.
	Throughput string `json:"throughput,omitempty"`
}

// Metric describes a metric in a file, so that files can be read without
// knowing the workload.
type Metric struct {
	Name   string `json:"name"`
	Unit   string `json:"unit"`
	Better string `json:"better,omitempty"` // lower, higher or empty
	Desc   string `json:"desc,omitempty"`
}

// ProcessMetrics are measured by the parent for every repetition, from the
// child's whole-process wall time and wait4 rusage, the way time(1) does;
// a summary counts them apart from the workload's own metrics
// (IsProcessMetric).
var ProcessMetrics = []Metric{
	{Name: "real", Unit: "ns", Better: "lower", Desc: "child process wall time, exec to exit (as time(1) real)"},
	{Name: "user", Unit: "ns", Better: "lower", Desc: "child process user CPU time (rusage)"},
	{Name: "sys", Unit: "ns", Better: "lower", Desc: "child process system CPU time (rusage)"},
	{Name: "cpu", Unit: "ns", Better: "lower", Desc: "user + sys: compare this, not the split, for fault-heavy runs in a VM"},
	{Name: "maxrss", Unit: "bytes", Better: "lower", Desc: "peak resident set size of the child (rusage)"},
	{Name: "minflt", Unit: "count", Desc: "minor page faults of the child (rusage)"},
	{Name: "majflt", Unit: "count", Desc: "major page faults of the child (rusage)"},
	{Name: "vcsw", Unit: "count", Desc: "voluntary context switches of the child (rusage)"},
	{Name: "ivcsw", Unit: "count", Desc: "involuntary context switches of the child (rusage)"},
}

// IsProcessMetric tells whether name is one of ProcessMetrics.
func IsProcessMetric(name string) bool {
	for _, m := range ProcessMetrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

// Config is one configuration of a workload.
type Config struct {
	Name   string  `json:"name"` // "", "a", "b", "threads=4"
	Params []Param `json:"params"`
	// Env holds settings of this configuration beyond the parameters,
	// such as the tracefs events it ran with.
	Env map[string]string `json:"env,omitempty"`
}

// Param is one parameter value, canonical and for display.
type Param struct {
	Name    string `json:"name"`
	Value   string `json:"value"` // canonical: integers in base units
	Display string `json:"display,omitempty"`
	Unit    string `json:"unit,omitempty"`
}

// Rep is one repetition.
type Rep struct {
	Index  int    `json:"index"` // position in run order, from 0
	Config int    `json:"config"`
	Warmup bool   `json:"warmup,omitempty"`
	Round  int    `json:"round,omitempty"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Start is when the repetition started; zero (and left out of the
	// file) when no one knows, as for the records of an imported log.
	Start time.Time `json:"start,omitzero"`
	// Metrics holds each metric's value in its base unit.
	Metrics Values               `json:"metrics,omitempty"`
	Series  map[string][]float64 `json:"series,omitempty"`
	Notes   []string             `json:"notes,omitempty"`
	// Output holds what an external program printed (exec), or what a
	// prepare command printed (ab).
	Output  string  `json:"output,omitempty"`
	LoadAvg float64 `json:"loadavg,omitempty"` // 1-minute load average when the repetition started
	// BootID is the boot the repetition ran in
	// (/proc/sys/kernel/random/boot_id): runs of one boot are not
	// independent samples of a kernel (see analysis.CompareBoots).
	BootID string `json:"boot_id,omitempty"`
}

// ParamValue returns the canonical value of parameter name in config c.
func (f *File) ParamValue(c int, name string) (string, bool) {
	if c < 0 || c >= len(f.Configs) {
		return "", false
	}
	for _, p := range f.Configs[c].Params {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// Metric returns the description of metric name.
func (f *File) Metric(name string) (Metric, bool) {
	for _, m := range f.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	for _, m := range f.families {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Values returns the values of metric name over the successful,
// non-warm-up repetitions of config c (c < 0: all configs).
func (f *File) Values(c int, name string) []float64 {
	var xs []float64
	if f.cols != nil {
		vals, has := f.cols.Metric(name)
		for i, ok := range has {
			if ok && f.cols.Status(i) == StatusOK && !f.cols.Warmup(i) && (c < 0 || f.cols.Config(i) == c) {
				xs = append(xs, vals[i])
			}
		}
		return xs
	}
	for _, r := range f.Reps {
		if r.Status != StatusOK || r.Warmup || (c >= 0 && r.Config != c) {
			continue
		}
		if v, ok := r.Metrics.Lookup(name); ok {
			xs = append(xs, v)
		}
	}
	return xs
}

// Counts returns how many measured (non-warm-up) repetitions of config c
// ended in each status.
func (f *File) Counts(c int) map[string]int {
	n := map[string]int{}
	if f.cols != nil {
		for i := range f.cols.Len() {
			if !f.cols.Warmup(i) && (c < 0 || f.cols.Config(i) == c) {
				n[f.cols.Status(i)]++
			}
		}
		return n
	}
	for _, r := range f.Reps {
		if !r.Warmup && (c < 0 || r.Config == c) {
			n[r.Status]++
		}
	}
	return n
}

// A ReadOption changes what Read keeps of a file.
type ReadOption int

// WithoutOutputs leaves every Rep.Output empty: what a program printed is
// kept for show and for the reader, and compare and plot never look at it
// (an import of 100,000 log records holds 4 MB of it).
const WithoutOutputs ReadOption = 1

// Read reads and checks the result file at path. Errors name the file and
// what is wrong with it. A torn last record of a version-2 file is
// dropped, with a warning in the File's Warnings.
func Read(path string, opts ...ReadOption) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such result file", path)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	defer fh.Close()
	f, err := readFile(fh, !slices.Contains(opts, WithoutOutputs), slices.Contains(opts, AsColumns))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return f, nil
}

// readAll reads fh whole (at most MaxFileSize+1 bytes) in one allocation
// sized from its length.
func readAll(fh *os.File) ([]byte, error) {
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, errors.New("is a directory, not a result file")
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(st.Size(), MaxFileSize)+512))
	_, err = buf.ReadFrom(io.LimitReader(fh, MaxFileSize+1))
	return buf.Bytes(), err
}

// Parse decodes and checks a result file's bytes, of either version.
func Parse(b []byte) (*File, error) {
	f, _, err := parse(b)
	return f, err
}

// parse is Parse, also returning how many bytes of b hold whole records
// (all of b but a torn last line).
func parse(b []byte) (*File, int, error) {
	if len(b) > MaxFileSize {
		return nil, 0, fmt.Errorf("larger than %d MiB: not a result file", MaxFileSize>>20)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, 0, errors.New("empty file, not a result file")
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	if versionTwoHeader(first) {
		return parseLines(b) // which checks that b is UTF-8
	}
	if !utf8.Valid(b) {
		return nil, 0, errNotUTF8
	}
	f, err := parseDocument(b)
	return f, len(b), err
}

// versionTwoHeader tells whether the first line of a file is a whole
// object naming this format and version 2 (else the file is a version-1
// document, maybe on one line, or not a result file).
func versionTwoHeader(first []byte) bool {
	first = bytes.TrimSpace(first)
	if len(first) == 0 || first[0] != '{' || !json.Valid(first) {
		return false
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	return json.Unmarshal(first, &head) == nil && head.Format == FormatName && head.Version == 2
}

// parseDocument decodes a version-1 file: one JSON document.
func parseDocument(b []byte) (*File, error) {
	f := new(File)
	if err := json.Unmarshal(b, f); err != nil || f.Format != FormatName || f.Version != 1 {
		return nil, documentError(b, err)
	}
	f.dropRepeated(func() []int { return nil })
	f.importProvenance()
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

// dropRepeated keeps the first record of each repetition index in f.Reps
// and records the others in f.Repeated, with a warning each: a repetition
// counted twice would make show report 9 repetitions for 8. lines returns
// the file line of each record of f.Reps (nil: unknown); it is called only
// when an index repeats.
func (f *File) dropRepeated(lines func() []int) {
	sequential := true
	for i := range f.Reps {
		if f.Reps[i].Index != i {
			sequential = false
			break
		}
	}
	if sequential {
		return // the writer's order: no index twice
	}
	first := map[int]int{} // index -> position of its first record
	dup := map[int][]int{} // index -> positions of its records
	var order []int
	for i := range f.Reps {
		x := f.Reps[i].Index
		if p, ok := first[x]; ok {
			if len(dup[x]) == 0 {
				dup[x] = []int{p}
				order = append(order, x)
			}
			dup[x] = append(dup[x], i)
			continue
		}
		first[x] = i
	}
	if len(order) == 0 {
		return
	}
	at := lines()
	drop := map[int]bool{}
	for _, x := range order {
		r := RepeatedRep{Index: x, Count: len(dup[x])}
		a, _ := json.Marshal(&f.Reps[dup[x][0]])
		for _, p := range dup[x] {
			if at != nil {
				r.Lines = append(r.Lines, at[p])
			}
			if p != dup[x][0] {
				drop[p] = true
				if b, _ := json.Marshal(&f.Reps[p]); !bytes.Equal(a, b) {
					r.Differ = true
				}
			}
		}
		f.Repeated = append(f.Repeated, r)
		f.Warnings = append(f.Warnings, r.warning())
	}
	kept := f.Reps[:0]
	for i := range f.Reps {
		if !drop[i] {
			kept = append(kept, f.Reps[i])
		}
	}
	clear(f.Reps[len(kept):])
	f.Reps = kept
}

// warning says that the index is in the file more than once and what was
// counted.
func (r RepeatedRep) warning() string {
	where := ""
	if len(r.Lines) > 0 {
		s := make([]string, len(r.Lines))
		for i, l := range r.Lines {
			s[i] = strconv.Itoa(l)
		}
		where = " (lines " + strings.Join(s, ", ") + ")"
	}
	times := "twice"
	if r.Count > 2 {
		times = strconv.Itoa(r.Count) + " times"
	}
	if r.Differ {
		return fmt.Sprintf("repetition %d is in the file %s%s with different records: only the first is counted, and compare refuses the file until the wrong one is removed", r.Index, times, where)
	}
	return fmt.Sprintf("repetition %d is in the file %s%s, the same record: counted once", r.Index, times, where)
}

// CheckRepeated returns an error when the file holds two different
// records of one repetition index (see File.Repeated): which is right is
// unknown, so no statistic should be drawn from it.
func (f *File) CheckRepeated() error {
	for _, r := range f.Repeated {
		if r.Differ {
			return errors.New(r.warning())
		}
	}
	return nil
}

// documentError says what is wrong with a file that is not a readable
// version-1 document, looking at its header first so that a newer format
// is reported as such rather than as a decoding error.
func documentError(b []byte, err error) error {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("truncated or corrupt JSON (%v): not a complete result file", err)
		}
		return fmt.Errorf("not a result file: %v", err)
	}
	if err := json.Unmarshal(first, &head); err != nil {
		// Another tool's JSON: say what it is in words, not in Go types.
		var fields map[string]json.RawMessage
		if json.Unmarshal(first, &fields) != nil {
			return fmt.Errorf("not a contend result file (a JSON %s, not an object)", jsonKind(first))
		}
		if json.Unmarshal(fields["format"], &head.Format) != nil {
			return fmt.Errorf("not a contend result file (its format is a JSON %s, not %q)", jsonKind(fields["format"]), FormatName)
		}
		if head.Format == FormatName {
			return fmt.Errorf("result format version %s is invalid (a JSON %s, not a whole number)", short(fields["version"]), jsonKind(fields["version"]))
		}
	}
	if head.Format != FormatName {
		return fmt.Errorf("not a contend result file (format %q)", head.Format)
	}
	if head.Version > FormatVersion {
		return fmt.Errorf("result format version %d is newer than this contend reads (%d): upgrade contend", head.Version, FormatVersion)
	}
	if head.Version < 1 {
		return fmt.Errorf("result format version %d is invalid", head.Version)
	}
	if head.Version == 2 {
		return errors.New("version-2 result file whose header is not on its first line: corrupt")
	}
	if dec.More() {
		return errors.New("more than one JSON document: not a single result file")
	}
	return fmt.Errorf("corrupt result file: %v", err)
}

// jsonKind names the kind of the JSON value v in words.
func jsonKind(v json.RawMessage) string {
	switch t := bytes.TrimSpace(v); {
	case len(t) == 0:
		return "nothing"
	case t[0] == '[':
		return "array"
	case t[0] == '{':
		return "object"
	case t[0] == '"':
		return "string"
	case t[0] == 't' || t[0] == 'f':
		return "boolean"
	case t[0] == 'n':
		return "null"
	default:
		return "number"
	}
}

// short is the JSON text v, cut to 20 bytes.
func short(v json.RawMessage) string {
	if t := bytes.TrimSpace(v); len(t) > 20 {
		return string(t[:20]) + "..."
	}
	return string(bytes.TrimSpace(v))
}

// record is one line after a version-2 header: exactly one field is set.
type record struct {
	Rep    *Rep     `json:"rep,omitempty"`
	Append *Segment `json:"append,omitempty"`
	End    *end     `json:"end,omitempty"`
}

// end ends a run: when, whether it was complete, and the warnings added
// after the header was written.
type end struct {
	Time     time.Time `json:"time"`
	Complete bool      `json:"complete"`
	Warnings []string  `json:"warnings,omitempty"`
}

// parseLines decodes a version-2 file: a header line, then records. The
// records are decoded in parallel (most of the time of reading a large
// file), each CPU a range of lines, the repetitions into their places in
// one array (which becomes f.Reps); a torn last line is dropped with a
// warning. The lines are checked to be UTF-8 there too.
func parseLines(b []byte) (*File, int, error) {
	head := len(b)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		head = i + 1
	}
	body := b[head:]
	nlines := countLines(body)
	reps := newReps(nlines)
	others, valid := decodeRanges(body, reps, true)
	if !valid || !utf8.Valid(b[:head]) {
		return nil, 0, errNotUTF8
	}
	f, err := parseHeader(b[:head])
	if err != nil {
		return nil, 0, err
	}
	good, err := f.assemble(reps, others, len(b))
	if err != nil {
		return nil, 0, err
	}
	return f, good, nil
}

// countLines returns the number of lines of body, the last one with or
// without its newline.
func countLines(body []byte) int {
	n := bytes.Count(body, []byte("\n"))
	if len(body) > 0 && body[len(body)-1] != '\n' {
		n++
	}
	return n
}

// parseHeader decodes the header line of a version-2 file.
func parseHeader(head []byte) (*File, error) {
	f := new(File)
	if err := json.Unmarshal(head, f); err != nil {
		return nil, fmt.Errorf("corrupt result file header: %v", err)
	}
	f.Complete, f.End = false, time.Time{}
	return f, nil
}

// assemble completes f, whose header is decoded, from the lines after the
// header: reps[i] holds line i when it is a repetition, others the other
// lines in order. It returns how many bytes of the file (size) hold whole
// records.
func (f *File) assemble(reps []Rep, others []otherLine, size int) (int, error) {
	nlines := len(reps)
	// The repetitions go to f.Reps in place (reps[nrep] is at or before
	// their line), or after the header's when it had any.
	inPlace := len(f.Reps) == 0
	nrep := 0
	good, err := f.assembleLines(nlines, others, size, func(from, to int) {
		if inPlace {
			nrep += copy(reps[nrep:], reps[from:to])
		} else {
			f.Reps = append(f.Reps, reps[from:to]...)
		}
	})
	if err != nil {
		return 0, err
	}
	if inPlace {
		f.Reps = reps[:nrep]
	}
	f.dropRepeated(func() []int {
		if !inPlace {
			return nil
		}
		other := make(map[int]bool, len(others))
		for _, o := range others {
			other[o.index] = true
		}
		lines := make([]int, 0, len(f.Reps))
		for i := 0; i < nlines && len(lines) < len(f.Reps); i++ {
			if !other[i] {
				lines = append(lines, i+2)
			}
		}
		return lines
	})
	f.importProvenance()
	if err := f.check(); err != nil {
		return 0, err
	}
	return good, nil
}

// assembleLines completes f from the nlines lines after the header,
// others the lines that are not repetitions, in order: it calls keep for
// each run of repetition lines (from, to), in order, and reads the
// others. It returns how many bytes of the file (size) hold whole
// records.
func (f *File) assembleLines(nlines int, others []otherLine, size int, keep func(from, to int)) (int, error) {
	addReps := func(from, to int) { // the lines from..to-1 are repetitions
		if from == to {
			return
		}
		keep(from, to)
		f.Complete, f.End = false, time.Time{}
	}
	good := size
	next := 0 // the first line not yet taken
	for _, o := range others {
		addReps(next, o.index)
		next = o.index + 1
		if o.blank {
			continue
		}
		r, err := o.rec, o.err
		if err == nil {
			n := 0
			for _, set := range []bool{r.Rep != nil, r.Append != nil, r.End != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				err = errors.New("not one repetition, append or end record")
			}
		}
		if err != nil {
			if o.index == nlines-1 && !o.newline {
				f.Warnings = append(f.Warnings, fmt.Sprintf("the last record of the file (line %d, %d bytes) is torn, as a run killed while writing it leaves it: dropped", o.index+2, o.length))
				good = size - o.length
				next = nlines
				break
			}
			return 0, fmt.Errorf("corrupt result file: line %d: %v", o.index+2, err)
		}
		switch {
		case r.Rep != nil:
			// decodeRanges took every line of one repetition record.
			return 0, fmt.Errorf("corrupt result file: line %d: a repetition record not read", o.index+2)
		case r.Append != nil:
			f.Appends = append(f.Appends, *r.Append)
			f.Complete, f.End = false, time.Time{}
		case r.End != nil:
			f.End, f.Complete = r.End.Time, r.End.Complete
			f.Warnings = append(f.Warnings, r.End.Warnings...)
		}
	}
	addReps(next, nlines)
	return good, nil
}

var errNotUTF8 = errors.New("not valid UTF-8: not a result file")

// otherLine is a line after the header that is not a repetition of the
// writer's shape: blank, another record, or one that does not decode.
type otherLine struct {
	index   int // from 0 after the header
	length  int // in bytes, newline included
	newline bool
	blank   bool
	rec     record
	err     error
}

// decodeRanges decodes the lines of body on every CPU, each a range of
// whole lines: repetitions of the writer's shape into reps[line] (by the
// fast decoder), the other lines into the returned list, in order. valid
// is false when body is not UTF-8. Without outputs, every Rep's Output is
// left empty.
func decodeRanges(body []byte, reps []Rep, outputs bool) (others []otherLine, valid bool) {
	return decodeInto(body, len(reps), &repDst{reps: reps}, outputs)
}

// repDst is where decodeInto puts the repetition of line i: reps[i], or
// row base+i of cols.
type repDst struct {
	reps []Rep
	cols *Columns
	base int
	// found is what the decoders found beyond cols' dense columns
	// (Columns.merge); other is true when a repetition has a metric cols
	// has no column for: the file must be read the other way.
	found colFound
	other bool
}

// decodeInto is decodeRanges of the nlines lines of body into d.
func decodeInto(body []byte, nlines int, d *repDst, outputs bool) (others []otherLine, valid bool) {
	workers := min(runtime.GOMAXPROCS(0), 1+nlines/1024)
	// Cut body into ranges of whole lines, counting the lines before each.
	type part struct {
		start, end, first int
		others            []otherLine
		valid             bool
		found             colFound
		other             bool
	}
	parts := make([]part, 0, workers)
	for start, first := 0, 0; start < len(body); {
		end := len(body)
		if left := workers - len(parts); left > 1 {
			end = start + (len(body)-start)/left
			if i := bytes.IndexByte(body[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(body)
			}
		}
		parts = append(parts, part{start: start, end: end, first: first})
		first += bytes.Count(body[start:end], []byte("\n"))
		start = end
	}
	var wg sync.WaitGroup
	for k := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &parts[k]
			chunk := body[p.start:p.end]
			p.valid = utf8.Valid(chunk)
			s := repScanner{noOutput: !outputs}
			last := nlines // the range's lines are p.first up to last
			if k+1 < len(parts) {
				last = parts[k+1].first
			}
			// Into columns, each line is decoded into one Rep, its
			// metrics into one array, both used again for the next.
			var scratch Rep
			s.reuse = d.cols != nil
			put := func(i int, r *Rep) {
				if d.cols != nil && !d.cols.setRow(d.base+i, r, &p.found, false) {
					p.other = true
				}
			}
			for off, i := 0, p.first; off < len(chunk); i++ {
				s.lines = last - i
				end := len(chunk)
				if j := bytes.IndexByte(chunk[off:], '\n'); j >= 0 {
					end = off + j + 1
				}
				line := chunk[off:end]
				off = end
				r := &scratch
				if d.cols == nil {
					r = &d.reps[i]
				}
				if s.decodeRep(line, r) {
					put(i, r)
					continue
				}
				*r = Rep{} // what the fast decoder left
				o := otherLine{index: i, length: len(line), newline: line[len(line)-1] == '\n'}
				if len(bytes.TrimSpace(line)) == 0 {
					o.blank = true
				} else if o.err = json.Unmarshal(line, &o.rec); o.err == nil && o.rec.Rep != nil && o.rec.Append == nil && o.rec.End == nil {
					*r, o.rec.Rep = *o.rec.Rep, nil // a repetition encoding/json reads
					if !outputs {
						r.Output = ""
					}
					put(i, r)
					continue
				}
				p.others = append(p.others, o)
			}
		}()
	}
	wg.Wait()
	valid = true
	for _, p := range parts {
		others = append(others, p.others...)
		valid = valid && p.valid
		d.found.extras = append(d.found.extras, p.found.extras...)
		d.found.ids = append(d.found.ids, p.found.ids...)
		d.other = d.other || p.other
	}
	return others, valid
}

// importProvenance reads the parameters an import file written before
// they were its environment (log, lines, select: which log, which of its
// lines and which records were read) as that environment: log.path (when
// missing), log.lines, log.select. They say where the samples come from,
// not what was measured, and compare of two such files said "the
// parameters differ".
func (f *File) importProvenance() {
	if f.Kind != "import" {
		return
	}
	keys := map[string]string{"log": "log.path", "lines": "log.lines", "select": "log.select"}
	for i := range f.Configs {
		c := &f.Configs[i]
		kept := c.Params[:0]
		for _, p := range c.Params {
			k, ok := keys[p.Name]
			if !ok {
				kept = append(kept, p)
				continue
			}
			if c.Env == nil {
				c.Env = map[string]string{}
			}
			if _, ok := c.Env[k]; !ok {
				c.Env[k] = p.Value
			}
		}
		c.Params = kept
	}
}

func (f *File) check() error {
	if f.Workload == "" {
		return errors.New("corrupt result file: no workload")
	}
	if len(f.Configs) == 0 {
		return errors.New("corrupt result file: no configuration")
	}
	if f.cols != nil {
		if err := f.checkColumns(); err != nil {
			return err
		}
		f.ExpandFamilies()
		return nil
	}
	names := f.metricNames()
	for i := range f.Reps {
		if err := f.checkRep(i, &f.Reps[i], names); err != nil {
			return err
		}
	}
	f.ExpandFamilies()
	return nil
}

// metricNames returns the names of the metrics f describes.
func (f *File) metricNames() nameSet {
	names := nameSet{exact: map[string]bool{}}
	for _, m := range f.Metrics {
		if prefix, ok := Family(m.Name); ok {
			names.families = append(names.families, prefix)
			continue
		}
		names.exact[m.Name] = true
	}
	return names
}

// checkRep checks r, repetition i of f; names are f's metric names.
func (f *File) checkRep(i int, r *Rep, names nameSet) error {
	if r.Config < 0 || r.Config >= len(f.Configs) {
		return fmt.Errorf("corrupt result file: repetition %d names configuration %d of %d", i, r.Config, len(f.Configs))
	}
	switch r.Status {
	case StatusOK, StatusFailed, StatusTimeout, StatusInterrupted:
	default:
		return fmt.Errorf("corrupt result file: repetition %d has status %q", i, r.Status)
	}
	for k, v := range r.Metrics.All() {
		if !names.has(k) || math.IsNaN(v) || math.IsInf(v, 0) {
			return r.metricError(i, names)
		}
	}
	return nil
}

// metricError says what is wrong with the metrics of repetition i, the
// first wrong one by name.
func (r *Rep) metricError(i int, names nameSet) error {
	for k, v := range r.Metrics.sorted().All() {
		if !names.has(k) {
			return fmt.Errorf("corrupt result file: repetition %d has undescribed metric %q", i, k)
		} else if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("corrupt result file: repetition %d metric %s is %v", i, k, v)
		}
	}
	return nil
}

// ConfigName returns a readable name of config c: its name, or its
// parameters.
func (f *File) ConfigName(c int) string {
	if c < 0 || c >= len(f.Configs) {
		return "?"
	}
	if f.Configs[c].Name != "" {
		return f.Configs[c].Name
	}
	var ps []string
	for _, p := range f.Configs[c].Params {
		d := p.Shown()
		ps = append(ps, p.Name+"="+d)
	}
	return strings.Join(ps, " ")
}
