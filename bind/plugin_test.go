package bind

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildPlugin compiles src against native/contend_plugin.h into a shared
// object.
func buildPlugin(t *testing.T, src string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	c := filepath.Join(dir, "p.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(dir, "p.so")
	native, _ := filepath.Abs("../native")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-fPIC", "-shared", "-I", native, "-o", so, c).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return so
}

const fixedPlugin = `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "fixed work", "odd", "even");
void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	for (int i = 0; i < 1000; i++) {
		(*t->iterations)++;
		t->counters[i & 1]++;
	}
}
`

func TestPluginFixedCountsAddUp(t *testing.T) {
	so := buildPlugin(t, fixedPlugin)
	r, err := Plugin(PluginParams{SO: so, Threads: 3, ReportFD: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != PluginFixed || r.Iterations != 3000 || len(r.PerThread) != 3 || r.PerThread[2] != 1000 || r.ElapsedNs == 0 {
		t.Errorf("result %+v", r)
	}
	if strings.Join(r.Counters, ",") != "odd,even" || r.CounterTotals[0] != 1500 || r.CounterTotals[1] != 1500 || r.Description != "fixed work" {
		t.Errorf("counters %v %v %q", r.Counters, r.CounterTotals, r.Description)
	}
}

func TestPluginErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_DURATION, "no worker");
`, "defines no contend_worker"},
		{`#include "contend_plugin.h"
void contend_worker(void *s, unsigned id, struct contend_thread *t) {}
`, "defines no contend_plugin"},
		{`#include "contend_plugin.h"
#undef CONTEND_PLUGIN_ABI
#define CONTEND_PLUGIN_ABI 99
CONTEND_PLUGIN(CONTEND_DURATION, "future");
void contend_worker(void *s, unsigned id, struct contend_thread *t) {}
`, "was built for plugin ABI 99, this contend runs ABI 1"},
		{`#include <errno.h>
#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "setup fails");
int contend_setup(unsigned n, void **s) { return EMFILE; }
void contend_worker(void *s, unsigned id, struct contend_thread *t) {}
`, "contend_setup of"},
	}
	for _, c := range cases {
		so := buildPlugin(t, c.src)
		_, err := Plugin(PluginParams{SO: so, Threads: 2, DurationNs: 1e6, ReportFD: -1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	_, err := Plugin(PluginParams{SO: "/nonexistent/p.so", Threads: 1, ReportFD: -1})
	if err == nil || !strings.Contains(err.Error(), "plugin: /nonexistent/p.so: cannot open shared object file") {
		t.Errorf("missing file: %v", err)
	}
}
