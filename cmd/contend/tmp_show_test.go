package main

import (
	"path/filepath"
	"testing"
)

func TestTmpShow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kc")
	synthCampaign{BootsPerSide: 4, Runs: 10, BootSD: 0.05, RunSD: 0.02, Seed: 2}.write(t, dir)
	r := runCLI(t, "compare", dir)
	t.Logf("%s%s", r.stdout, r.stderr)
}
