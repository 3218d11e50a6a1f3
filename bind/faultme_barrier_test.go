package bind

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/testutil"
)

// TestFaultmeBarrierErrorsFail builds native/faultme.c with a
// pthread_barrier_wait that returns EINVAL at its k-th call (after
// waiting, so the threads stay in step): every such error must fail the
// repetition naming pthread_barrier_wait, for each k.
func TestFaultmeBarrierErrorsFail(t *testing.T) {
	native, err := filepath.Abs("../native")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.ReplaceAll(`#include <errno.h>
#include <pthread.h>
#include <stdio.h>
static int fail_at = -1, calls;
static int fake_barrier_wait(pthread_barrier_t *b)
{
	int err = pthread_barrier_wait(b);

	return __atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST) == fail_at ? EINVAL : err;
}
#define pthread_barrier_wait fake_barrier_wait
#include "NATIVE/common.c"
#include "NATIVE/faultme.c"
int main(void)
{
	struct ct_faultme_params p = { .threads = 2, .mem = 8 * 4096, .stride = 4096, .report_fd = -1 };
	struct ct_faultme_result r;

	/* 2 barriers x (2 threads + main) = 6 calls */
	for (fail_at = -1; fail_at < 6; fail_at++) {
		calls = 0;
		int err = ct_faultme_run(&p, &r);
		printf("%d %d %s|%s\n", fail_at, err, r.status.call, r.status.detail);
	}
	return 0;
}
`, "NATIVE", native)
	bin := testutil.BuildC(t, src, "-pthread")
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "-1 0 |") {
		t.Fatalf("want a clean run then 6 failures:\n%s", out)
	}
	for _, l := range lines[1:] {
		if !strings.Contains(l, " 22 pthread_barrier_wait|in ") {
			t.Errorf("an injected barrier error did not fail the repetition: %q", l)
		}
	}
}
