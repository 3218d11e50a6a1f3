package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"contend"
)

// MutexPlugin is will-it-scale's pthread_mutex1 in contend's plugin ABI,
// with a counter (busy) of the lock attempts that found the mutex taken.
const MutexPlugin = `#include <errno.h>
#include <pthread.h>
#include "contend_plugin.h"

CONTEND_PLUGIN(CONTEND_DURATION, "contended pthread mutex lock/unlock", "busy");

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	/* At least one round, however late the worker runs. */
	do {
		if (pthread_mutex_trylock(&m) == EBUSY) {
			pthread_mutex_lock(&m);
			t->counters[0]++;
		}
		pthread_mutex_unlock(&m);
		(*t->iterations)++;
	} while (!contend_stopped(t));
}
`

// BuildPlugin compiles src against native/contend_plugin.h, written
// beside it as 'contend port --header' writes it, into dir/name.so. The
// test is skipped when there is no compiler.
func BuildPlugin(t testing.TB, dir, name, src string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	hdr, err := contend.Native.ReadFile("native/contend_plugin.h")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "contend_plugin.h"), hdr, 0o644); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(dir, name+".so")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-fPIC", "-shared", "-o", so, c).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return so
}
