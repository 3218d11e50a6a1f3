package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"contend/internal/results"
)

// docCommands returns the commands of docs/result-files.md's blocks marked
// "<!-- result-files: KIND -->", by kind.
func docCommands(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/result-files.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := map[string][]string{}
	kind := ""
	for _, l := range strings.Split(string(b), "\n") {
		if k, ok := strings.CutPrefix(l, "<!-- result-files: "); ok {
			kind = strings.TrimSuffix(k, " -->")
			continue
		}
		if c, ok := strings.CutPrefix(l, "    "); ok && kind != "" {
			cmds[kind] = append(cmds[kind], c)
			continue
		}
		kind = ""
	}
	return cmds
}

// trailingComment is a shell comment after a command: "  # ...".
var trailingComment = regexp.MustCompile(`\s{2,}#\s.*$`)

// readmeReadCommands returns the jq and python3 commands of README.md's
// section on reading result files, which read the file first.jsonl.
func readmeReadCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Where the results go, and how to read them\n")
	if !ok {
		t.Fatal("README.md has no section \"Where the results go, and how to read them\"")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var out []string
	for _, l := range strings.Split(sec, "\n") {
		c, ok := strings.CutPrefix(l, "    ")
		if ok && (strings.HasPrefix(c, "jq ") || strings.HasPrefix(c, "python3 ")) {
			out = append(out, strings.TrimSpace(trailingComment.ReplaceAllString(c, "")))
		}
	}
	return out
}

// TestResultFilesDoc: a run without --out writes results/*.jsonl, whose
// header line no longer says "complete": false; 'show --format json' (and
// run --format json) is one JSON document with the summaries and every
// repetition, which contend reads back; a file of the old shape (header "complete": false,
// end line complete) still reads as complete; and every jq and Python
// command of docs/result-files.md, and README.md's jq and Python lines,
// work on the real file (jq skipped when not installed).
func TestResultFilesDoc(t *testing.T) {
	cmds := docCommands(t) // before the test leaves the package directory
	readme := readmeReadCommands(t)
	dir := chdirTemp(t)
	r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "64KiB", "-n", "6", "-q")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "results", "*"))
	if len(names) != 1 || !strings.HasSuffix(names[0], ".jsonl") {
		t.Fatalf("default result file %v, want one results/*.jsonl", names)
	}
	file := names[0]
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := bytes.Cut(raw, []byte("\n"))
	if bytes.Contains(head, []byte(`"complete"`)) {
		t.Errorf("the header line says complete: %s", head)
	}

	r = runCLI(t, "show", "--format", "json", file)
	if r.code != 0 {
		t.Fatalf("show --format json: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Complete bool              `json:"complete"`
		Reps     []json.RawMessage `json:"reps"`
		Summary  []struct {
			Counts  map[string]int `json:"counts"`
			Metrics []struct {
				Name     string                       `json:"name"`
				N        int                          `json:"n"`
				Median   float64                      `json:"median"`
				MedianCI *struct{ Low, High float64 } `json:"median_ci"`
				Values   []float64                    `json:"values"`
			} `json:"metrics"`
		} `json:"summary"`
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("show --format json is not one JSON document (%v):\n%.300s", err, r.stdout)
	}
	if !doc.Complete || len(doc.Reps) != 6 || len(doc.Summary) != 1 || doc.Summary[0].Counts["ok"] != 6 {
		t.Fatalf("document: complete %v, %d reps, %d summaries", doc.Complete, len(doc.Reps), len(doc.Summary))
	}
	var timeOK bool
	for _, m := range doc.Summary[0].Metrics {
		if m.Name == "time" {
			timeOK = m.N == 6 && len(m.Values) == 6 && m.MedianCI != nil && m.MedianCI.Low <= m.Median && m.Median <= m.MedianCI.High
		}
	}
	if !timeOK {
		t.Errorf("no summary of time with n 6, its values and an interval around the median")
	}
	// run --format json prints the same document.
	rj := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "64KiB", "-n", "2", "-q", "--format", "json", "--out", filepath.Join(dir, "j.jsonl"))
	var rdoc struct {
		Reps    []json.RawMessage `json:"reps"`
		Summary []struct {
			Metrics []struct{ Name string } `json:"metrics"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(rj.stdout), &rdoc); err != nil || len(rdoc.Reps) != 2 || len(rdoc.Summary) != 1 || len(rdoc.Summary[0].Metrics) == 0 {
		t.Errorf("run --format json: %v, %d reps, %d summaries", err, len(rdoc.Reps), len(rdoc.Summary))
	}
	docFile := filepath.Join(dir, "doc.json")
	if err := os.WriteFile(docFile, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := results.Read(docFile); err != nil || !f.Complete || len(f.Reps) != 6 {
		t.Errorf("the document read back: %v", err)
	}

	// The old shape: "complete": false in the header of a finished run.
	old := append([]byte(nil), raw...)
	old = bytes.Replace(old, []byte(`{"format":`), []byte(`{"complete":false,"format":`), 1)
	oldFile := filepath.Join(dir, "old.json")
	if err := os.WriteFile(oldFile, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := results.Read(oldFile); err != nil || !f.Complete {
		t.Errorf("an old file with complete false in its header: %v", err)
	}

	// The doc's commands, with contend this test binary.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nCONTEND_TEST_AS_MAIN=1 exec " + exe + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "contend"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if len(cmds["jq"]) < 3 || len(cmds["python"]) < 2 {
		t.Fatalf("docs/result-files.md: %d jq and %d python commands, want 3 and 2", len(cmds["jq"]), len(cmds["python"]))
	}
	// README.md's jq and Python lines, on the file of a run of six
	// repetitions: one time a repetition, and the count with the first.
	if len(readme) != 2 || !strings.HasPrefix(readme[0], "jq ") || !strings.HasPrefix(readme[1], "python3 ") {
		t.Fatalf("README.md's reading section: commands %q, want a jq and a python3 line", readme)
	}
	for i, c := range readme {
		tool := strings.Fields(c)[0]
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("%s not installed: README.md's line is not run", tool)
			continue
		}
		if !strings.Contains(c, "first.jsonl") {
			t.Errorf("README.md: %s does not read first.jsonl, the file of its first run", c)
		}
		out, err := exec.Command("sh", "-c", strings.ReplaceAll(c, "first.jsonl", file)).CombinedOutput()
		fields := strings.Fields(string(out))
		ok := err == nil && len(fields) == 6
		if i == 1 {
			ok = err == nil && len(fields) == 2 && fields[0] == "6"
		}
		for _, f := range fields {
			if _, perr := strconv.ParseFloat(f, 64); perr != nil {
				ok = false
			}
		}
		if !ok {
			t.Errorf("README.md: %s\n%v: %s", c, err, out)
		}
	}
	for _, kind := range []string{"jq", "python"} {
		tool := map[string]string{"jq": "jq", "python": "python3"}[kind]
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("%s not installed: its commands are not run", tool)
			continue
		}
		for _, c := range cmds[kind] {
			sh := exec.Command("sh", "-c", strings.ReplaceAll(c, "FILE", file))
			sh.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			out, err := sh.CombinedOutput()
			if err != nil || len(bytes.TrimSpace(out)) == 0 || bytes.Contains(out, []byte("null")) {
				t.Errorf("%s\n%v: %s", c, err, out)
			}
		}
	}
}
