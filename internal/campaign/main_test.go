package campaign

import (
	"os"
	"testing"
)

// TestMain runs the tests without the machine-wide benchmark lock (as
// cmd/contend's do), unless $CONTEND_LOCK names one: the tests of the
// lock set their own.
func TestMain(m *testing.M) {
	if os.Getenv("CONTEND_LOCK") == "" {
		os.Setenv("CONTEND_LOCK", "off")
	}
	os.Exit(m.Run())
}
