// Package results reads and writes contend's result files: one JSON
// document per run holding what ran (workload, parameters, command line,
// environment) and every repetition, finished or not.
//
// A Writer rewrites the whole file atomically (temporary file, fsync,
// rename) after each repetition, so a killed run leaves either the previous
// complete file or the new one, never a torn one, and loses at most the
// repetition in flight.
package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// FormatName and FormatVersion identify result files.
const (
	FormatName    = "contend-result"
	FormatVersion = 1
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
	// and after an interruption.
	Complete bool `json:"complete"`

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
	Reps  []Rep  `json:"reps"`
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
	Index  int       `json:"index"` // position in run order, from 0
	Config int       `json:"config"`
	Warmup bool      `json:"warmup,omitempty"`
	Round  int       `json:"round,omitempty"`
	Status string    `json:"status"`
	Error  string    `json:"error,omitempty"`
	Start  time.Time `json:"start"`
	// Metrics maps metric name to value in its base unit.
	Metrics map[string]float64   `json:"metrics,omitempty"`
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
	return Metric{}, false
}

// Values returns the values of metric name over the successful,
// non-warm-up repetitions of config c (c < 0: all configs).
func (f *File) Values(c int, name string) []float64 {
	var xs []float64
	for _, r := range f.Reps {
		if r.Status != StatusOK || r.Warmup || (c >= 0 && r.Config != c) {
			continue
		}
		if v, ok := r.Metrics[name]; ok {
			xs = append(xs, v)
		}
	}
	return xs
}

// Counts returns how many measured (non-warm-up) repetitions of config c
// ended in each status.
func (f *File) Counts(c int) map[string]int {
	n := map[string]int{}
	for _, r := range f.Reps {
		if !r.Warmup && (c < 0 || r.Config == c) {
			n[r.Status]++
		}
	}
	return n
}

// Writer keeps a File on disk up to date.
type Writer struct {
	path string
	File *File
}

// Create starts a result file at path with f's header and no repetitions.
// It fails if the directory cannot be written, before anything runs.
func Create(path string, f *File) (*Writer, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create the directory of result file %s: %w", path, err)
		}
	}
	w := &Writer{path: path, File: f}
	return w, w.flush()
}

// Path returns the file's path.
func (w *Writer) Path() string { return w.path }

// Add appends rep and rewrites the file.
func (w *Writer) Add(rep Rep) error {
	w.File.Reps = append(w.File.Reps, rep)
	return w.flush()
}

// Finish records the end time and completeness and rewrites the file.
func (w *Writer) Finish(end time.Time, complete bool) error {
	w.File.End = end
	w.File.Complete = complete
	return w.flush()
}

// Flush rewrites the file with the current contents.
func (w *Writer) Flush() error { return w.flush() }

func (w *Writer) flush() error {
	b, err := Marshal(w.File)
	if err != nil {
		return err
	}
	return writeAtomic(w.path, b)
}

// Marshal encodes f as indented JSON, refusing NaN and Inf values with a
// clear error instead of encoding/json's.
func Marshal(f *File) ([]byte, error) {
	for i, r := range f.Reps {
		for k, v := range r.Metrics {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("repetition %d: metric %s is %v", i, k, v)
			}
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write result file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write result file %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write result file %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write result file %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Read reads and checks the result file at path. Errors name the file and
// what is wrong with it.
func Read(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such result file", path)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a result file", path)
	}
	b, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return f, nil
}

// Parse decodes and checks a result file's bytes.
func Parse(b []byte) (*File, error) {
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("larger than %d MiB: not a result file", MaxFileSize>>20)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty file, not a result file")
	}
	if !utf8.Valid(b) {
		return nil, errors.New("not valid UTF-8: not a result file")
	}
	// Peek at the header first, so that a newer format is reported as
	// such rather than as a decoding error.
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&head); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("truncated or corrupt JSON (%v): not a complete result file", err)
		}
		return nil, fmt.Errorf("not a result file: %v", err)
	}
	if head.Format != FormatName {
		return nil, fmt.Errorf("not a contend result file (format %q)", head.Format)
	}
	if head.Version > FormatVersion {
		return nil, fmt.Errorf("result format version %d is newer than this contend reads (%d): upgrade contend", head.Version, FormatVersion)
	}
	if head.Version < 1 {
		return nil, fmt.Errorf("result format version %d is invalid", head.Version)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON document: not a single result file")
	}
	f := new(File)
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("corrupt result file: %v", err)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) check() error {
	if f.Workload == "" {
		return errors.New("corrupt result file: no workload")
	}
	if len(f.Configs) == 0 {
		return errors.New("corrupt result file: no configuration")
	}
	names := map[string]bool{}
	for _, m := range f.Metrics {
		names[m.Name] = true
	}
	for i, r := range f.Reps {
		if r.Config < 0 || r.Config >= len(f.Configs) {
			return fmt.Errorf("corrupt result file: repetition %d names configuration %d of %d", i, r.Config, len(f.Configs))
		}
		switch r.Status {
		case StatusOK, StatusFailed, StatusTimeout, StatusInterrupted:
		default:
			return fmt.Errorf("corrupt result file: repetition %d has status %q", i, r.Status)
		}
		for k, v := range r.Metrics {
			if !names[k] {
				return fmt.Errorf("corrupt result file: repetition %d has undescribed metric %q", i, k)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("corrupt result file: repetition %d metric %s is %v", i, k, v)
			}
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
