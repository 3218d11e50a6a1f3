package fleet

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompare: a fleet's directory is grouped by host and compared B
// with A within each, the hosts of its status file named; the refused
// inputs (--by, --format, no files, a bad status file, files on one side
// only) are InputErrors, each naming what is wrong.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	hostFile(t, dir, "h1", "ab.json", "a", "b")
	hostFile(t, dir, "h2", "ab.json", "a", "b")
	os.WriteFile(filepath.Join(dir, StatusFile), []byte("h1 ok\nh2 ok\nh3 unreachable\n"), 0o644)
	var warn bytes.Buffer
	fr, err := Compare(Request{By: "host", Args: []string{dir}, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Rows) != 2 || fr.Rows[0].Key != "h1" || fr.Rows[1].Key != "h2" {
		t.Errorf("rows %+v, want h1 and h2", fr.Rows)
	}
	var out bytes.Buffer
	if err := fr.Write(&out, "text"); err != nil || !strings.Contains(out.String(), "h3") {
		t.Errorf("the report does not name h3 of the status file: %v\n%s", err, out.String())
	}
	a := hostFile(t, t.TempDir(), "x", "before.json", "")
	b := hostFile(t, t.TempDir(), "x", "after.json", "")
	if fr, err := Compare(Request{By: "host", A: []string{a}, B: []string{b}}); err != nil || len(fr.Rows) != 1 {
		t.Errorf("--a/--b: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "status")
	os.WriteFile(bad, []byte("h1\n"), 0o644)
	for _, c := range []struct {
		r    Request
		want string
	}{
		{Request{By: "host"}, "compare --by host: which result files?"},
		{Request{By: "host", Args: []string{filepath.Join(dir, "nosuch.json")}}, "nosuch.json"},
		{Request{By: "host", Args: []string{dir}, Hosts: bad}, "--hosts: "},
		{Request{By: "host", A: []string{a}, B: []string{}}, "files on one side only"},
	} {
		if _, err := Compare(c.r); !IsInput(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want an input error with %q", c.r, err, c.want)
		}
	}
	for _, c := range [][2]string{{"hostname", "text"}, {"host", "csv"}} {
		if err := CheckRequest(c[0], c[1]); !IsInput(err) || !strings.Contains(err.Error(), "--"+map[bool]string{true: "by", false: "format"}[c[0] != "host"]) {
			t.Errorf("--by %s --format %s: %v", c[0], c[1], err)
		}
	}
	if err := CheckRequest("env.cpu.model", "json"); err != nil {
		t.Errorf("--by env.cpu.model --format json: %v", err)
	}
}
