package mmtestsimport

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"contend/internal/mmtests"
	"contend/internal/results"
)

// TestReadExport reads the --json-export form (the comparison object):
// three runs, their operations in _Operations' order, eight values each,
// DecimalPlaces 4, lower better; and the same runs as the --from-json
// array, gzip- and xz-compressed.
func TestReadExport(t *testing.T) {
	runs, err := ReadJSON("../../examples/mmtests-hackbench.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[1].Name != "6.2.0-rc3-patched" || runs[0].Benchmark != "hackbench" || runs[0].Higher || runs[0].Precision != 4 {
		t.Fatalf("runs %+v", runs)
	}
	if !reflect.DeepEqual(runs[0].Ops, []string{"time-1", "time-4", "time-16"}) || len(runs[2].Values["time-16"]) != 8 || len(runs[2].Values["time-16"][7]) != 1 {
		t.Errorf("operations %v, values %v", runs[0].Ops, runs[2].Values["time-16"])
	}
	arr, err := ReadJSON("testdata/hackbench.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range arr {
		for _, op := range runs[i].Ops {
			if !reflect.DeepEqual(arr[i].Values[op], runs[i].Values[op]) {
				t.Errorf("run %d %s: the array and the export differ", i, op)
			}
		}
	}
	data, _ := os.ReadFile("../../examples/mmtests-hackbench.json")
	dir := t.TempDir()
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write(data)
	z.Close()
	os.WriteFile(filepath.Join(dir, "hackbench.json.gz"), gz.Bytes(), 0o644)
	paths := []string{filepath.Join(dir, "hackbench.json.gz")}
	if _, err := exec.LookPath("xz"); err == nil {
		p := filepath.Join(dir, "hackbench.json")
		os.WriteFile(p, data, 0o644)
		if out, err := exec.Command("xz", "-k", p).CombinedOutput(); err != nil {
			t.Fatalf("xz: %v %s", err, out)
		}
		paths = append(paths, p+".xz")
	}
	for _, p := range paths {
		got, err := ReadJSON(p)
		if err != nil || !reflect.DeepEqual(got, runs) {
			t.Errorf("%s: %v, runs differ", p, err)
		}
	}
	if _, err := ParseJSON([]byte(`{"_ExtractModules":[{"_TestName":"a\u001b[2J","_ResultData":{"x":[{"Values":[1]}]}}]}`), "x"); err == nil {
		t.Error("a run name with an escape sequence accepted")
	}
}

// TestReadLogTree reads a work/log tree of hackbench-process-pipes (two
// runs, two iterations of three) with contend's own parser, and checks
// its table against mmtests' (compare-mmtests.pl -d log -b
// hackbench-process-pipes -n 6.2.0-vanilla,6.2.0-patched, run on the same
// tree: testdata/log.mmtests.txt). With CONTEND_MMTESTS set, mmtests'
// parse-results reads the tree too, and mmtests' compare runs again.
func TestReadLogTree(t *testing.T) {
	read := func(opt LogOptions) []Run {
		runs, err := ReadLogTree("testdata/log", opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || runs[0].Name != "6.2.0-patched" || runs[1].Name != "6.2.0-vanilla" {
			t.Fatalf("runs %+v", runs)
		}
		return []Run{runs[1], runs[0]} // mmtests' -n order
	}
	runs := read(LogOptions{})
	if got := runs[0].Values["time-4"]; len(got) != 2 || len(got[0]) != 3 || got[0][1] != 1.603 {
		t.Errorf("time-4 of 6.2.0-vanilla: %v", got)
	}
	var b bytes.Buffer
	if err := mmtests.Write(&b, tableOf(runs, runs[0].Precision)); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("testdata/log.mmtests.txt")
	compareLines(t, "log.mmtests.txt", b.String(), string(want))

	var f results.File
	runs[0].Fill(&f, "s")
	if len(f.Reps) != 6 || len(f.Metrics) != 2 || f.Metrics[0].Better != "lower" || f.Configs[0].Env[mmtests.NameEnv] != "6.2.0-vanilla" {
		t.Errorf("file: %d reps, metrics %v, configs %v", len(f.Reps), f.Metrics, f.Configs)
	}
	if v := f.Reps[3].Metrics.Get("time-1"); v != runs[0].Values["time-1"][1][0] {
		t.Errorf("rep 3 holds time-1 %v, want the first value of iteration 1", v)
	}

	// mmtests' own --json-export of the same tree (zstd-compressed, its
	// values strings): the same runs.
	if _, err := exec.LookPath("zstd"); err == nil {
		exp, err := ReadJSON("testdata/hackbench-process-pipes.json.zst")
		if err != nil {
			t.Fatal(err)
		}
		if len(exp) != 2 || exp[0].Name != "6.2.0-vanilla" || exp[0].Benchmark != "hackbench-process-pipes" || exp[0].Precision != 4 || exp[0].Higher ||
			!reflect.DeepEqual(exp[0].Values, runs[0].Values) || !reflect.DeepEqual(exp[1].Values, runs[1].Values) {
			t.Errorf("mmtests' export of the tree: %+v", exp)
		}
	}
	if _, err := ReadLogTree("testdata/log", LogOptions{Benchmark: "schbench"}); err == nil {
		t.Error("schbench's logs read without mmtests")
	}
	dir := os.Getenv("CONTEND_MMTESTS")
	if dir == "" {
		return
	}
	theirs := read(LogOptions{Mmtests: dir})
	for i := range runs {
		if !reflect.DeepEqual(theirs[i].Values, runs[i].Values) || !reflect.DeepEqual(theirs[i].Ops, runs[i].Ops) || theirs[i].Precision != runs[i].Precision {
			t.Errorf("run %s: mmtests' parse-results reads %v, contend %v", runs[i].Name, theirs[i].Values, runs[i].Values)
		}
	}
	cmd := exec.Command("perl", filepath.Join(dir, "bin", "compare-mmtests.pl"), "-d", "log", "-b", "hackbench-process-pipes", "-n", "6.2.0-vanilla,6.2.0-patched")
	cmd.Dir = "testdata"
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("compare-mmtests.pl: %v", err)
	}
	compareLines(t, "mmtests' own output", b.String(), string(out))
}
