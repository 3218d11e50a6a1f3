package results

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func sampleFile() *File {
	return &File{
		Format: FormatName, Version: FormatVersion, Contend: "test", Native: "0123456789abcdef",
		Kind: "run", Command: []string{"contend", "run", "faultme"}, Workload: "faultme",
		Label: "rt6 with patch", Start: time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC), Primary: "time",
		Metrics: []Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "pages", Unit: "count"}},
		Configs: []Config{{Params: []Param{{Name: "threads", Value: "40", Unit: "threads"}, {Name: "mem", Value: "1073741824", Display: "1GiB", Unit: "bytes"}}}},
		Env:     map[string]string{"kernel.release": "6.18.0"},
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "r.json")
	w, err := Create(path, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	// The header alone is a valid file.
	if f, err := Read(path); err != nil || len(f.Reps) != 0 || f.Complete {
		t.Fatalf("after Create: %v %+v", err, f)
	}
	for i := 0; i < 3; i++ {
		status := StatusOK
		if i == 1 {
			status = StatusFailed
		}
		rep := Rep{Index: i, Status: status, Start: time.Unix(int64(i), 0).UTC(), Metrics: ValuesOf(map[string]float64{"time": float64(1000 * (i + 1)), "pages": 262144})}
		if status == StatusFailed {
			rep.Error = "faultme: mmap failed: ENOMEM"
			rep.Metrics = nil
		}
		if err := w.Add(rep); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(time.Date(2026, 11, 30, 1, 3, 0, 0, time.UTC), true); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 3 || !f.Complete || f.Label != "rt6 with patch" {
		t.Fatalf("read back %+v", f)
	}
	if got := f.Values(0, "time"); len(got) != 2 || got[0] != 1000 || got[1] != 3000 {
		t.Errorf("Values = %v, want the two ok reps", got)
	}
	if c := f.Counts(0); c[StatusOK] != 2 || c[StatusFailed] != 1 {
		t.Errorf("Counts = %v", c)
	}
	if f.Reps[1].Error == "" {
		t.Error("failed rep lost its error")
	}
	if v, ok := f.ParamValue(0, "mem"); !ok || v != "1073741824" {
		t.Errorf("ParamValue mem = %q", v)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestReadErrors(t *testing.T) {
	good, err := Marshal(sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		data string
		want string
	}{
		"empty":          {"", "empty file"},
		"blank":          {"  \n", "empty file"},
		"truncated":      {string(good[:len(good)/2]), "truncated or corrupt"},
		"not json":       {"time = 1234 usecs\n", "truncated or corrupt"},
		"other json":     {`{"a":1}`, "not a contend result file"},
		"json array":     {`[1, 2]`, "not a contend result file (a JSON array, not an object)"},
		"json string":    {`"results"`, "not a contend result file (a JSON string, not an object)"},
		"format number":  {`{"format": 5}`, `not a contend result file (its format is a JSON number, not "contend-result")`},
		"version string": {`{"format": "contend-result", "version": "2"}`, `result format version "2" is invalid (a JSON string, not a whole number)`},
		"version float":  {`{"format": "contend-result", "version": 1.5}`, `result format version 1.5 is invalid`},
		"newer":          {strings.Replace(string(good), `"version": 1`, `"version": 9`, 1), "newer than this contend reads"},
		"concatenated":   {string(good) + string(good), "more than one JSON document"},
		"invalid utf8":   {string(good[:20]) + "\xff\xfe" + string(good[20:]), "not valid UTF-8"},
		"bad status":     {strings.Replace(string(good), `"reps": null`, `"reps": [{"index":0,"config":0,"status":"maybe","start":"2026-01-01T00:00:00Z"}]`, 1), `status "maybe"`},
		"bad config":     {strings.Replace(string(good), `"reps": null`, `"reps": [{"index":0,"config":5,"status":"ok","start":"2026-01-01T00:00:00Z"}]`, 1), "configuration 5"},
		"no workload":    {strings.Replace(string(good), `"workload": "faultme"`, `"workload": ""`, 1), "no workload"},
		"huge number":    {strings.Replace(string(good), `"reps": null`, `"reps": [{"index":0,"config":0,"status":"ok","start":"2026-01-01T00:00:00Z","metrics":{"time":1e999}}]`, 1), "corrupt"},
		"unknown metric": {strings.Replace(string(good), `"reps": null`, `"reps": [{"index":0,"config":0,"status":"ok","start":"2026-01-01T00:00:00Z","metrics":{"zzz":1}}]`, 1), `undescribed metric "zzz"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.json")
			os.WriteFile(path, []byte(c.data), 0o644)
			_, err := Read(path)
			if err == nil {
				t.Fatalf("no error")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("error %q: want the path and %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "no such result file") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Read(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}

func TestCreateUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		// root writes anywhere; use a path under a file instead.
	}
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	if _, err := Create(filepath.Join(blocker, "r.json"), sampleFile()); err == nil {
		t.Error("Create under a regular file succeeded")
	}
}

func TestMarshalRefusesNaN(t *testing.T) {
	f := sampleFile()
	f.Reps = []Rep{{Status: StatusOK, Metrics: ValuesOf(map[string]float64{"time": nan()})}}
	if _, err := Marshal(f); err == nil {
		t.Error("NaN encoded")
	}
}

func nan() float64 { var z float64; return z / z }

func rep(i int) Rep {
	return Rep{Index: i, Status: StatusOK, Start: time.Unix(int64(i), 0).UTC(), Metrics: ValuesOf(map[string]float64{"time": float64(1000 + i)})}
}

// TestKilledWriterLeavesEveryRep: the file of a run killed at any byte of
// its last record reads with every earlier repetition; a torn last record
// is dropped with a warning.
func TestKilledWriterLeavesEveryRep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	w, err := Create(path, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if err := w.Add(rep(i)); err != nil {
			t.Fatal(err)
		}
	}
	w.Close() // killed: no end record
	whole, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(whole), "\n")
	last := lines[len(lines)-2] // the 4th repetition's line
	prefix := strings.Join(lines[:len(lines)-2], "")
	for cut := 0; cut <= len(last); cut++ {
		f, err := Parse([]byte(prefix + last[:cut]))
		if err != nil {
			t.Fatalf("cut at %d of the last record: %v", cut, err)
		}
		want, torn := 3, cut > 0 && cut < len(last)-1
		if cut >= len(last)-1 { // whole, with or without its newline
			want = 4
		}
		if len(f.Reps) != want || f.Complete {
			t.Errorf("cut at %d: %d reps (complete %v), want %d", cut, len(f.Reps), f.Complete, want)
		}
		warned := len(f.Warnings) > 0 && strings.Contains(f.Warnings[len(f.Warnings)-1], "torn")
		if warned != torn {
			t.Errorf("cut at %d: torn %v, warnings %q", cut, torn, f.Warnings)
		}
	}
	// A torn record in the middle is corruption, not a kill.
	bad := prefix[:len(prefix)-10] + "\n" + last
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("torn middle record: %v", err)
	}
}

// TestVersion1StillRead: a version-1 file (one document, as contend wrote
// before) reads the same as the version-2 file of the same contents.
func TestVersion1StillRead(t *testing.T) {
	f := sampleFile()
	f.Reps = []Rep{rep(0), rep(1)}
	f.Complete, f.End = true, time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	v1, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := MarshalLines(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(v1), `"version": 1`) || !strings.HasPrefix(string(v2), `{"format":"contend-result","version":2`) {
		t.Fatalf("versions: %.60q / %.60q", v1, v2)
	}
	a, err := Parse(v1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(v2)
	if err != nil {
		t.Fatal(err)
	}
	a.Version, b.Version = 0, 0
	ja, _ := Marshal(a)
	jb, _ := Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("version 1 and 2 read differently:\n%s\n%s", ja, jb)
	}
}

// TestOpenModes: ModeNew refuses an existing file, ModeReplace truncates
// it, ModeAppend adds to a run of the same configuration and refuses
// another; an open Writer's file is locked against a second one.
func TestOpenModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	w, err := Create(path, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	w.Add(rep(0))
	for _, m := range []Mode{ModeNew, ModeReplace, ModeAppend} {
		if _, err := Open(path, sampleFile(), m); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
			t.Errorf("mode %d while locked: %v", m, err)
		}
	}
	w.Finish(time.Now(), true)
	before, _ := os.ReadFile(path)
	if _, err := Create(path, sampleFile()); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "1 repetition of faultme") {
		t.Errorf("ModeNew on an existing file: %v", err)
	}
	other := sampleFile()
	other.Configs[0].Params[0].Value = "20"
	if _, err := Open(path, other, ModeAppend); !errors.Is(err, ErrMismatch) {
		t.Errorf("append of another configuration: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a refusal changed the file")
	}
	w, err = Open(path, sampleFile(), ModeAppend)
	if err != nil {
		t.Fatal(err)
	}
	w.Add(rep(1))
	w.Finish(time.Now(), true)
	if f, err := Read(path); err != nil || len(f.Reps) != 2 || !f.Complete || len(f.Appends) != 1 {
		t.Errorf("after append: %v %+v", err, f)
	}
	w, err = Open(path, sampleFile(), ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	w.Finish(time.Now(), true)
	if f, err := Read(path); err != nil || len(f.Reps) != 0 {
		t.Errorf("after replace: %v %+v", err, f)
	}
}

// TestStaleTempRemoved: a temporary file left beside a result by a killed
// contend is removed when the result is next opened; one a live writer
// holds locked is kept.
func TestStaleTempRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	stale := filepath.Join(dir, ".r.json.tmp-123")
	live := filepath.Join(dir, ".r.json.tmp-456")
	os.WriteFile(stale, []byte("{"), 0o644)
	os.WriteFile(live, []byte("{"), 0o644)
	fh, _ := os.Open(live)
	defer fh.Close()
	if err := unix.Flock(int(fh.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := os.Stat(stale); err == nil {
		t.Error("stale temporary file kept")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("a locked temporary file was removed")
	}
}

// TestWriteFailureListsUnsaved: when a write fails (disk full), the file
// is cut back to its last whole record and the Writer lists the
// repetitions it does not hold.
func TestWriteFailureListsUnsaved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	w, err := Create(path, sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	w.Add(rep(0))
	w.Add(rep(1))
	defer func() { writeAt = (*os.File).WriteAt }()
	writeAt = func(f *os.File, b []byte, off int64) (int, error) {
		n, _ := f.WriteAt(b[:len(b)/2], off) // half written, then full
		return n, syscall.ENOSPC
	}
	if err := w.Add(rep(2)); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Add: %v", err)
	}
	if err := w.Add(rep(3)); err == nil {
		t.Error("Add after a failure succeeded")
	}
	if err := w.Finish(time.Now(), true); err == nil {
		t.Error("Finish after a failure succeeded")
	}
	if got := w.Unsaved(); len(got) != 2 || got[0] != 2 || got[1] != 3 || len(w.File.Reps) != 4 {
		t.Errorf("Unsaved = %v of %d", got, len(w.File.Reps))
	}
	f, err := Read(path)
	if err != nil || len(f.Reps) != 2 || len(f.Warnings) != 0 {
		t.Errorf("file after the failure: %v %+v", err, f)
	}
}
