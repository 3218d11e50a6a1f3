package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		rep := Rep{Index: i, Status: status, Start: time.Unix(int64(i), 0).UTC(), Metrics: map[string]float64{"time": float64(1000 * (i + 1)), "pages": 262144}}
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
	f.Reps = []Rep{{Status: StatusOK, Metrics: map[string]float64{"time": nan()}}}
	if _, err := Marshal(f); err == nil {
		t.Error("NaN encoded")
	}
}

func nan() float64 { var z float64; return z / z }
