package tune

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Values of PageReporting besides "on (...)".
const (
	PageReportingOff     = "off"
	PageReportingUnknown = "" // sysfs does not say
)

// virtioBalloon is the virtio device id of a memory balloon, and
// balloonReporting the bit of its features that offers free page
// reporting (VIRTIO_BALLOON_F_REPORTING).
const (
	virtioBalloon    = "0x0005"
	balloonReporting = 5
)

// PageReporting says whether free page reporting hands the memory this
// guest frees back to its host: "on (virtio-balloon, free blocks of 2 MiB
// and more)", PageReportingOff, or PageReportingUnknown when sysfs is not
// there to say. With it on, the host takes back what a run frees within
// seconds, and the next run faults those pages in again, from the host: a
// run that allocates memory is faster right after another than a few
// seconds later (docs/commands.md, "A quiet machine"). Reporting devices
// are virtio-balloon with the reporting feature (QEMU's
// free-page-reporting=on, Firecracker's, crosvm's) and Hyper-V's balloon.
func PageReporting(root string) string {
	if _, err := os.Stat(filepath.Join(root, "sys/devices")); err != nil {
		return PageReportingUnknown
	}
	var device string
	devs, _ := filepath.Glob(filepath.Join(root, "sys/bus/virtio/devices/*"))
	for _, d := range devs {
		features := readFile(filepath.Join(d, "features"))
		_, bound := os.Lstat(filepath.Join(d, "driver"))
		if bound == nil && strings.TrimSpace(readFile(filepath.Join(d, "device"))) == virtioBalloon &&
			len(features) > balloonReporting && features[balloonReporting] == '1' {
			device = "virtio-balloon"
		}
	}
	if device == "" && hvBalloon(root) {
		device = "hv_balloon"
	}
	if device == "" {
		return PageReportingOff
	}
	order, err := strconv.Atoi(strings.TrimSpace(readFile(filepath.Join(root, "sys/module/page_reporting/parameters/page_reporting_order"))))
	if err != nil || order < 0 || order > 20 {
		return "on (" + device + ")"
	}
	return "on (" + device + ", free blocks of " + sizeWords(int64(os.Getpagesize())<<order) + " and more)"
}

// hvBalloon says whether Hyper-V's balloon driver has a device: it
// reports free pages whenever the host offers it.
func hvBalloon(root string) bool {
	entries, _ := os.ReadDir(filepath.Join(root, "sys/bus/vmbus/drivers/hv_balloon"))
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 && e.Name() != "module" {
			return true
		}
	}
	return false
}

// sizeWords is n bytes as "4 KiB", "2 MiB" or "1 GiB" (n a power of two).
func sizeWords(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.unit
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
