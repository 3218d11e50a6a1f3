package plot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDrawFleet(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "fleet.json")
	os.WriteFile(in, []byte(`{"by":"host","metric":"time","groups":[
	 {"key":"epyc64","change":-0.2,"change_lo":-0.25,"change_hi":-0.15},
	 {"key":"xeon16","change":0.1,"change_lo":null,"change_hi":null},
	 {"key":"same","change":null}]}`), 0o644)
	out := filepath.Join(dir, "fleet.svg")
	if err := DrawFleet(out, in); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, w := range []string{"epyc64", "xeon16", "same", "change of B against A per host"} {
		if !strings.Contains(s, w) {
			t.Errorf("plot lacks %q", w)
		}
	}
	// One colour per host: the first two series colours are used.
	for _, c := range SeriesColors[:2] {
		if !strings.Contains(s, fmt.Sprintf("stroke:#%02X%02X%02X;", c.R, c.G, c.B)) {
			t.Errorf("plot lacks the colour %v", c)
		}
	}
	if err := DrawFleet(filepath.Join(dir, "x.pdf"), in); err == nil || !strings.Contains(err.Error(), "unknown image format") {
		t.Errorf("pdf: %v", err)
	}
	os.WriteFile(in, []byte(`[1,2]`), 0o644)
	if err := DrawFleet(out, in); err == nil || !strings.Contains(err.Error(), "not a fleet comparison") {
		t.Errorf("bad json: %v", err)
	}
}
