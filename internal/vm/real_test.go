package vm

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"contend/internal/results"
)

// TestBootReal boots the kernel image $CONTEND_VM_KERNEL with the contend
// binary $CONTEND_VM_CONTEND (make build's bin/contend) as its init and
// runs a small faultme in it; skipped without them (e2e/ runs the
// campaigns on Debian's kernels).
func TestBootReal(t *testing.T) {
	kernel, exe := os.Getenv("CONTEND_VM_KERNEL"), os.Getenv("CONTEND_VM_CONTEND")
	if kernel == "" || exe == "" {
		t.Skip("CONTEND_VM_KERNEL and CONTEND_VM_CONTEND not set")
	}
	var log strings.Builder
	r, err := NewRunner(context.Background(), Config{Contend: exe, Log: &log, Accel: os.Getenv("CONTEND_VM_ACCEL")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := t.TempDir()
	if d := os.Getenv("CONTEND_VM_KEEP"); d != "" {
		dir = d
	}
	res, err := r.Boot(context.Background(), Guest{Kernel: kernel, CPUs: 2, Dir: dir, Timeout: 5 * time.Minute},
		Command{Args: []string{"run", "--out", GuestOut, "faultme", "--threads", "2", "--mem", "16MiB", "-n", "3"}, Out: GuestOut})
	t.Logf("accelerator log: %s", log.String())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := KernelRelease(kernel)
	if res.Report.Release != want || res.Report.BootID == "" || res.Report.Exit != 0 {
		t.Fatalf("report %+v, want release %s, a boot id, exit 0", res.Report, want)
	}
	path := dir + "/result.json"
	if err := os.WriteFile(path, res.Output, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Env["vm.accel"] != res.Accel || f.Env["kernel.release"] != want || f.Env["kernel.boot_id"] != res.Report.BootID {
		t.Errorf("result env: vm.accel %q, kernel.release %q, boot id %q; want %s, %s, %s", f.Env["vm.accel"], f.Env["kernel.release"], f.Env["kernel.boot_id"], res.Accel, want, res.Report.BootID)
	}
	t.Logf("accel %s, command started after %s, QEMU ended after %s", res.Accel, res.StartedAfter, res.Elapsed)
}
