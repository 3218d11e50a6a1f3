package kbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/textfmt"
	"contend/internal/vm"
)

// TestRealKernel builds a real kernel tree twice at one revision, with
// tinyconfig and scripts/kernel/contend-guest.config, when
// CONTEND_KBUILD_TREE names one (a git repository; scripts/e2e/ktree.sh
// makes one) and CONTEND_KBUILD_DIR the build directory to keep (the
// e2e's cache): the image is a bzImage with a release, the guest's
// options are in, the second build rebuilds almost nothing.
func TestRealKernel(t *testing.T) {
	tree, dir := os.Getenv("CONTEND_KBUILD_TREE"), os.Getenv("CONTEND_KBUILD_DIR")
	if tree == "" || dir == "" {
		t.Skip("a real kernel build runs with CONTEND_KBUILD_TREE=REPO CONTEND_KBUILD_DIR=DIR (minutes of CPU)")
	}
	rev := os.Getenv("CONTEND_KBUILD_REV")
	if rev == "" {
		rev = "HEAD"
	}
	frag, _ := filepath.Abs("../../scripts/kernel/contend-guest.config")
	o := Options{Tree: tree, Dir: dir, Base: BaseTinyconfig, Fragments: []string{frag}, Require: []string{"SMP"}, Log: &Tail{W: os.Stderr}}
	if _, err := Prepare(o); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		// Not the kept image: make runs each time.
		if h, err := gitOut(tree, "rev-parse", rev); err == nil {
			os.Remove(filepath.Join(dir, ImagesDir, textfmt.Commit(h)+".json"))
		}
		start := time.Now()
		k, err := Build(context.Background(), o, rev)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := vm.KernelRelease(k.Image)
		t.Logf("build %d of %s: %s wall, make %.1f s, %d objects rebuilt, ccache %v, release %q (%v), config %s, options %v",
			i+1, k.Revision[:12], time.Since(start).Round(time.Second), k.BuildSeconds, k.Rebuilt, k.CCache, rel, err, k.ConfigSHA256[:12], k.Options)
		if err != nil || !strings.HasPrefix(rel, "6.") {
			t.Errorf("the image's release: %q, %v", rel, err)
		}
		if k.Options["SCHED_MC"] != "y" || k.Options["SMP"] != "y" {
			t.Errorf("options %v", k.Options)
		}
		if i == 1 && k.Rebuilt > 20 {
			t.Errorf("the second build of one revision rebuilt %d objects", k.Rebuilt)
		}
	}
}
