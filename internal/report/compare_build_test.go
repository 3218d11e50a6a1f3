package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"contend/internal/comparison"
)

// TestCompareWarnsOnDifferentBuilds: two files measured by binaries built
// with different C flags get a warning near the headline and the flags
// among the environment differences; a file that predates build
// provenance gets no warning (nothing is known about its build).
func TestCompareWarnsOnDifferentBuilds(t *testing.T) {
	a, b := abFile(), abFile()
	for k, v := range map[string]string{"build.CGO_CFLAGS": "(empty)", "cc.flags": "-O1 or higher; 12.2.0", "build.vcs.revision": "aaaa", "go.version": "go1.26.8"} {
		a.Env[k] = v
		b.Env[k] = v
	}
	b.Env["build.CGO_CFLAGS"] = "-O0"
	b.Env["cc.flags"] = "-O0 (not optimised), no inlining; 12.2.0"
	cmp := func(a, b map[string]string, format string) string {
		fa, fb := abFile(), abFile()
		fa.Env, fb.Env = a, b
		var buf bytes.Buffer
		if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", fa, 0), comparison.FileSide("b", fb, 0)}, comparison.Options{}, format); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	out := cmp(a.Env, b.Env, "text")
	warn := "\nwarning: contend was built differently for the sides: cc.flags, build.CGO_CFLAGS\n"
	head := strings.Index(out, "mutex time:")
	if i := strings.Index(out, warn); i < 0 || head < 0 || i > head {
		t.Errorf("no build warning before the headline:\n%s", out)
	}
	for _, want := range []string{"build.CGO_CFLAGS  A (empty)  B -O0", "cc.flags\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("environment differences lack %q:\n%s", want, out)
		}
	}
	var j struct {
		Built []string `json:"built_differently"`
	}
	if err := json.Unmarshal([]byte(cmp(a.Env, b.Env, "json")), &j); err != nil || strings.Join(j.Built, " ") != "cc.flags build.CGO_CFLAGS" {
		t.Errorf("json built_differently = %v (%v)", j.Built, err)
	}
	old := map[string]string{"kernel.release": "6.1.0", "go.version": "go1.26.8"}
	if out := cmp(old, b.Env, "text"); strings.Contains(out, "built differently") {
		t.Errorf("a file without build provenance got the build warning:\n%s", out)
	}
	if out := cmp(a.Env, a.Env, "text"); strings.Contains(out, "built differently") {
		t.Errorf("one build got the build warning:\n%s", out)
	}
}
