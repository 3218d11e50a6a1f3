package fleet

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// hostFile writes dir/HOST/NAME, a result file of the configurations
// names (one value each side, shifted), with the host's marker.
func hostFile(t *testing.T, dir, host, name string, names ...string) string {
	t.Helper()
	d := filepath.Join(dir, host)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, HostMarker), []byte(host+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vals := map[string][][]float64{"time": {}}
	for i := range names {
		vals["time"] = append(vals["time"], []float64{100 + float64(i), 101, 99, 100.5, 99.5, 100.2})
	}
	f := file("faultme", twoMetrics[:1], names, vals)
	f.Kind, f.Complete = "run", true
	if len(names) == 2 {
		f.Kind = "ab"
	}
	b, err := results.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFilesAddDirectory: a directory stands for the result files under
// it, a file that is not one is skipped with a warning, and the status
// file beside them is found.
func TestFilesAddDirectory(t *testing.T) {
	dir := t.TempDir()
	hostFile(t, dir, "h1", "ab.json", "a", "b")
	hostFile(t, dir, "h2", "ab.json", "a", "b")
	os.WriteFile(filepath.Join(dir, "h2", "notes.json"), []byte("not a result file\n"), 0o644)
	os.WriteFile(filepath.Join(dir, StatusFile), []byte("h1 ok\nh2 ok\n"), 0o644)
	var warn bytes.Buffer
	fs := &Files{Warn: &warn}
	if err := fs.Add([]string{dir}, 0); err != nil {
		t.Fatal(err)
	}
	if len(fs.Items) != 2 || fs.Status != filepath.Join(dir, StatusFile) || !strings.Contains(warn.String(), "notes.json") || !strings.Contains(warn.String(), "(skipped)") {
		t.Errorf("items %d status %q warnings %q", len(fs.Items), fs.Status, warn.String())
	}
	groups, err := Groups(fs.Items, "host")
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[0].Key != "h1" || groups[0].A.Parts[0].Name != filepath.Join(dir, "h1", "ab.json")+":a" || groups[0].B.Parts[0].Configs[0] != 1 {
		t.Errorf("groups %+v", groups)
	}
	if _, _, err := ResultFiles(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no result file") {
		t.Errorf("an empty directory: %v", err)
	}
}

// TestGroupsSides: the sides of a group from --a/--b, from two files (the
// first the baseline), or not at all (Skip says why); one side only is an
// error.
func TestGroupsSides(t *testing.T) {
	dir := t.TempDir()
	part := func(p string) comparison.Part {
		pt, _, err := comparison.OpenPart(p)
		if err != nil {
			t.Fatal(err)
		}
		return pt
	}
	before, after := part(hostFile(t, dir, "x1", "before.json", "")), part(hostFile(t, dir, "x1", "after.json", ""))
	three := part(hostFile(t, dir, "x2", "one.json", ""))
	items := []Item{{Part: before}, {Part: after}, {Part: three}, {Part: part(hostFile(t, dir, "x2", "two.json", ""))}, {Part: part(hostFile(t, dir, "x2", "three.json", ""))}}
	groups, err := Groups(items, "host")
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[0].A.Parts[0].Name != before.Name || groups[0].B.Parts[0].Name != after.Name || groups[0].Skip != "" {
		t.Errorf("two files: %+v", groups[0])
	}
	if s := groups[1].Skip; !strings.Contains(s, "host x2 has 3 files") || len(groups[1].A.Parts) != 0 {
		t.Errorf("three files: skip %q", s)
	}
	g, err := Groups([]Item{{Part: after, Side: 'A'}, {Part: before, Side: 'B'}}, "host")
	if err != nil || g[0].A.Parts[0].Name != after.Name || g[0].B.Parts[0].Name != before.Name {
		t.Errorf("--a/--b: %+v %v", g, err)
	}
	if _, err := Groups([]Item{{Part: after, Side: 'A'}}, "host"); err == nil || !strings.Contains(err.Error(), "files on one side only") {
		t.Errorf("one side only: %v", err)
	}
	if _, err := Groups([]Item{{Part: after}}, "env.cpu.model"); err == nil || !strings.Contains(err.Error(), `records no environment key "cpu.model"`) {
		t.Errorf("a missing env key: %v", err)
	}
}

// TestCheckBy checks the accepted --by: host and env.KEY, nothing else.
func TestCheckBy(t *testing.T) {
	for by, ok := range map[string]bool{"host": true, "env.cpu.model": true, "env.": false, "hostname": false, "": false} {
		if err := CheckBy(by); (err == nil) != ok {
			t.Errorf("--by %q: %v", by, err)
		}
	}
}
