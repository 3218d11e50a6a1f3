package port

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend"
)

// TestTemplate: the plugin's name everywhere NAME stood, the mode's
// CONTEND_PLUGIN line and loop, no placeholder left; both modes compile
// against the embedded header (with cc, when there is one).
func TestTemplate(t *testing.T) {
	hdr, err := contend.Native.ReadFile("native/contend_plugin.h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "contend_plugin.h"), hdr, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mode, line, loop string }{
		{"duration", `CONTEND_PLUGIN(CONTEND_DURATION, "mytest: TODO`, "while (!contend_stopped(t)) {"},
		{"fixed", `CONTEND_PLUGIN(CONTEND_FIXED, "mytest: TODO`, "for (unsigned long i = 0; i < 1000000; i++) {"},
	} {
		src := Template("mytest", c.mode)
		if !strings.Contains(src, c.line) || !strings.Contains(src, c.loop) || strings.Contains(src, "NAME") || strings.Contains(src, "{{") {
			t.Errorf("%s:\n%s", c.mode, src)
		}
		if !strings.HasPrefix(src, "/*\n * mytest.c - a contend plugin") || !strings.Contains(src, "cc -O2 -fPIC -shared -o mytest.so mytest.c") {
			t.Errorf("%s: the head names another file:\n%s", c.mode, src[:200])
		}
		cc, err := exec.LookPath("cc")
		if err != nil {
			continue
		}
		file := filepath.Join(dir, c.mode+".c")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(cc, "-fsyntax-only", "-Wall", "-Werror", "-I", dir, file).CombinedOutput(); err != nil {
			t.Errorf("%s does not compile: %v\n%s", c.mode, err, out)
		}
	}
}
