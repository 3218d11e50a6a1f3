package tune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPageReporting: a bound virtio balloon that negotiated
// VIRTIO_BALLOON_F_REPORTING (bit 5 of its features, as this project's
// PVM guest's: 0110010100...) reports free blocks of 4 KiB <<
// page_reporting_order; a balloon without the bit, an unbound one, or
// none is off; a root without sysfs does not say. `contend check` prints
// it and, when on, advises alternated sides.
func TestPageReporting(t *testing.T) {
	root := t.TempDir()
	if got := PageReporting(root); got != PageReportingUnknown {
		t.Errorf("no sysfs: %q", got)
	}
	dev := filepath.Join(root, "sys/bus/virtio/devices/virtio0")
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sys/devices/.keep", "")
	if got := PageReporting(root); got != PageReportingOff {
		t.Errorf("no balloon: %q", got)
	}
	write("sys/bus/virtio/devices/virtio0/device", "0x0005\n")
	write("sys/bus/virtio/devices/virtio0/features", "0110000100000000000000000000000010000000\n")
	if err := os.Symlink("../../../../bus/virtio/drivers/virtio_balloon", filepath.Join(dev, "driver")); err != nil {
		t.Fatal(err)
	}
	if got := PageReporting(root); got != PageReportingOff {
		t.Errorf("a balloon without the reporting feature: %q", got)
	}
	write("sys/bus/virtio/devices/virtio0/features", "0110010100000000000000000000000010000000\n")
	if got := PageReporting(root); got != "on (virtio-balloon)" {
		t.Errorf("reporting, order unreadable: %q", got)
	}
	write("sys/module/page_reporting/parameters/page_reporting_order", "9\n")
	want := "on (virtio-balloon, free blocks of " + sizeWords(int64(os.Getpagesize())<<9) + " and more)"
	if got := PageReporting(root); got != want {
		t.Errorf("reporting at order 9: %q, want %q", got, want)
	}
	var b strings.Builder
	writeMemory(&b, Readiness{PageReporting: want}, time.Second)
	advice := writeMemory(&b, Readiness{PageReporting: want}, time.Second)
	if !strings.HasPrefix(b.String(), "memory:    free page reporting "+want+"\n") || len(advice) != 1 || !strings.Contains(advice[0], "alternated (ab, verify)") {
		t.Errorf("check: %q, advice %q", b.String(), advice)
	}
	if err := os.Remove(filepath.Join(dev, "driver")); err != nil {
		t.Fatal(err)
	}
	if got := PageReporting(root); got != PageReportingOff {
		t.Errorf("an unbound balloon: %q", got)
	}
	if advice := writeMemory(&b, Readiness{PageReporting: PageReportingOff}, time.Second); advice != nil {
		t.Errorf("off: advice %q", advice)
	}
	if sizeWords(2<<20) != "2 MiB" || sizeWords(4096) != "4 KiB" || sizeWords(1<<30) != "1 GiB" || sizeWords(100) != "100 bytes" {
		t.Errorf("sizeWords: %s %s %s %s", sizeWords(2<<20), sizeWords(4096), sizeWords(1<<30), sizeWords(100))
	}
}
