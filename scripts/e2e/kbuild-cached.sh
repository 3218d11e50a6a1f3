#!/usr/bin/env bash
# kbuild-cached.sh: exits 0 when the e2e cache holds what makes the
# end-to-end kernel-tree bisect (e2e/kbuild_test.go) fit in CI's time: the
# tree of scripts/e2e/ktree.sh and a kernel built from it in its build
# directory (make O=, kept between runs). .ci/run sets CONTEND_E2E_KBUILD=1
# for make e2e only then: a first run on a new machine unpacks the tree
# and builds a clean kernel, tens of minutes on 2 cores (docs/vm.md), so
# .ci/run runs it after make e2e when 45 of its 90 minutes are left;
# 'make e2e-kbuild' runs it whatever the cache holds, and so fills it.
cache=${CONTEND_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contend-e2e}
for t in "$cache"/ktree-*/.contend-ktree-done; do
	[[ -f $t ]] || continue
	v=$(basename "$(dirname "$t")")
	[[ -f $cache/kbuild-${v#ktree-}/out/vmlinux ]] && exit 0
done
exit 1
