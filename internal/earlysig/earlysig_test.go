package earlysig

import (
	"testing"

	"contend/internal/harness"
)

func TestChildArgAgrees(t *testing.T) {
	if ChildArg != harness.ChildArg {
		t.Errorf("earlysig.ChildArg %q, harness.ChildArg %q", ChildArg, harness.ChildArg)
	}
}
