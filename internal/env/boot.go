package env

import (
	"strconv"
	"strings"
	"sync"
)

// BootIDPath is where the kernel publishes the random id of the running
// boot: a new one at every boot, the same for every process of one boot.
const BootIDPath = "/proc/sys/kernel/random/boot_id"

// Kernel is the identity of the running kernel and boot: what a campaign
// checks after a reboot, and what every repetition records (BootID).
type Kernel struct {
	Release string `json:"release"` // uname -r
	Version string `json:"version"` // uname -v
	Cmdline string `json:"cmdline"` // /proc/cmdline
	BootID  string `json:"boot_id"` // /proc/sys/kernel/random/boot_id
}

var (
	testMu     sync.Mutex
	testKernel *Kernel
)

// OverrideForTest makes BootID and RunningKernel return the non-empty
// fields of k instead of the machine's (nil restores the machine's). It
// is for tests only: nothing in contend calls it; the test binaries call
// it from their TestMain (CONTEND_TEST_BOOT_ID and friends are read there,
// in _test.go files, so the contend binary never reads them).
func OverrideForTest(k *Kernel) {
	testMu.Lock()
	defer testMu.Unlock()
	testKernel = k
}

func override() *Kernel {
	testMu.Lock()
	defer testMu.Unlock()
	return testKernel
}

// BootID returns the id of the running boot, "" when the kernel does not
// publish one.
func BootID() string {
	if k := override(); k != nil && k.BootID != "" {
		return k.BootID
	}
	return read(BootIDPath)
}

// RunningKernel returns the identity of the running kernel and boot.
func RunningKernel() Kernel {
	f := Capture(nil)
	k := Kernel{Release: f["kernel.release"], Version: f["kernel.version"], Cmdline: f["kernel.cmdline"], BootID: BootID()}
	if o := override(); o != nil {
		if o.Release != "" {
			k.Release = o.Release
		}
		if o.Version != "" {
			k.Version = o.Version
		}
		if o.Cmdline != "" {
			k.Cmdline = o.Cmdline
		}
	}
	return k
}

// LoadAvg returns the 1-minute load average (/proc/loadavg), 0 when it
// cannot be read.
func LoadAvg() float64 {
	la := strings.Fields(read("/proc/loadavg"))
	if len(la) == 0 {
		return 0
	}
	x, _ := strconv.ParseFloat(la[0], 64)
	return x
}
