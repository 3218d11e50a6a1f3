package jsonl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/safefile"
)

type rec struct {
	Event string  `json:"event"`
	X     float64 `json:"x"`
}

func needEvent(r rec) error {
	if r.Event == "" {
		return errors.New("no event")
	}
	return nil
}

// TestTornLineSkippedAndCounted: a line cut short (a kill mid-write) is
// skipped and counted, and the next record starts a line of its own.
func TestTornLineSkippedAndCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := Append(path, rec{"a", 1}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"event":"b","x":`)
	f.Close()
	if err := Append(path, rec{"c", 3}); err != nil {
		t.Fatal(err)
	}
	rs, torn, err := Read[rec](path, safefile.Self, needEvent)
	if err != nil || torn != 1 || len(rs) != 2 || rs[0].Event != "a" || rs[1].Event != "c" {
		t.Fatalf("records %+v, torn %d, err %v", rs, torn, err)
	}
}

// TestDamageRefused: a line that is not a cut record (garbage, a number
// out of range, two records on a line, a record the check refuses)
// refuses the ledger in one line naming the line; a missing ledger is
// empty.
func TestDamageRefused(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"event":"a","x":1}` + "\nhello\n", "line 2 is not a record"},
		{`{"event":"a","x":1e999}` + "\n", "line 1 is not a record"},
		{`{"event":"a"}{"event":"b"}` + "\n", "line 1 is not a record"},
		{`{"x":2}` + "\n", "line 1: no event"},
	} {
		path := filepath.Join(t.TempDir(), "ledger.jsonl")
		os.WriteFile(path, []byte(c.body), 0o644)
		_, _, err := Read[rec](path, safefile.Self, needEvent)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.body, err, c.want)
		}
	}
	rs, torn, err := Read[rec](filepath.Join(t.TempDir(), "none"), safefile.Self, nil)
	if err != nil || rs != nil || torn != 0 {
		t.Fatalf("missing ledger: %v %d %v", rs, torn, err)
	}
}

// TestAppendRefusesSymlink: the ledger is opened refusing a symbolic
// link (a shared directory).
func TestAppendRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o644)
	link := filepath.Join(dir, "ledger.jsonl")
	os.Symlink(target, link)
	if err := Append(link, rec{"a", 1}); err == nil {
		t.Fatal("appended through a symbolic link")
	}
}
