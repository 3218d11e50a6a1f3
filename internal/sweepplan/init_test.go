package sweepplan

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestLinkingHarnessLeavesProcessAlone: this package links harness (Slot)
// but runs no repetition, so this process must not have become a child
// subreaper (harness used to set it in a package init, in every binary
// and test that linked it).
func TestLinkingHarnessLeavesProcessAlone(t *testing.T) {
	var on int32
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&on)), 0, 0, 0); err != nil {
		t.Skipf("PR_GET_CHILD_SUBREAPER: %v", err)
	}
	if on != 0 {
		t.Errorf("a process linking harness is a child subreaper before running any repetition: a package init changed process state")
	}
}
