#!/usr/bin/env bash
# ktree.sh: the kernel source tree of the end-to-end kernel builds
# (e2e/kbuild_test.go): a git repository made from Debian's
# linux-source-6.1 with a series of 16 commits after its first, each
# changing one file that a tiny kernel compiles (a comment at its end),
# and commit 11 planting a slowdown in the anonymous page-fault path
# (udelay(20) at the top of do_anonymous_page, mm/memory.c: about 0.33 s
# more per 64 MiB of 4 KiB faults).
#
#   scripts/e2e/ktree.sh
#
# Prints the repository's directory, cached in
# $CONTEND_E2E_CACHE/ktree-VERSION (default ~/.cache/contend-e2e), and
# beside it the e2e's persistent build directory's parent (kbuild-VERSION,
# made by the test) and ccache's (ccache). The commits have fixed dates
# and authors, so their hashes are the same on every machine and a cached
# build directory stays valid. linux-source-6.1 is installed with apt-get
# when missing (as root).
#
# The benchmark (scripts/bench-kbuild-bisect.sh) asks for a longer series:
# KTREE_COMMITS (16, at most 32) commits after the first, the slowdown
# planted at KTREE_PLANT (11), from KTREE_SOURCE (linux-source-6.1, or
# linux-source-6.12 when installed); a series other than the e2e's is
# cached as ktree-VERSION-cN-pK.
set -euo pipefail
ncommits=${KTREE_COMMITS:-16}
plant=${KTREE_PLANT:-11}
source=${KTREE_SOURCE:-linux-source-6.1}
if ! [[ $ncommits =~ ^[0-9]+$ ]] || ((ncommits < 2 || ncommits > 32)); then
	echo "ktree.sh: KTREE_COMMITS=$ncommits: give 2 to 32" >&2
	exit 2
fi
if ! [[ $plant =~ ^[0-9]+$ ]] || ((plant < 1 || plant > ncommits)); then
	echo "ktree.sh: KTREE_PLANT=$plant: give 1 to KTREE_COMMITS ($ncommits)" >&2
	exit 2
fi
if [[ $source != linux-source-6.1 && $source != linux-source-6.12 ]]; then
	echo "ktree.sh: KTREE_SOURCE=$source: give linux-source-6.1 or linux-source-6.12" >&2
	exit 2
fi
if [[ ! -f /usr/src/$source.tar.xz ]]; then
	if ((EUID != 0)); then
		echo "ktree.sh: /usr/src/$source.tar.xz is missing: install $source (as root)" >&2
		exit 2
	fi
	echo "ktree.sh: installing $source, flex, bison, bc, libelf-dev" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"$source" flex bison bc libelf-dev libssl-dev xz-utils make gcc >&2
fi
for t in flex bison bc; do
	command -v $t >/dev/null || {
		((EUID == 0)) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends flex bison bc libelf-dev >&2
		break
	}
done
tarball=/usr/src/$source.tar.xz
ver=$(dpkg-query -W -f '${Version}' "$source" 2>/dev/null || basename "$tarball" .tar.xz)
cache=${CONTEND_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contend-e2e}
out=$cache/ktree-$ver
if ((ncommits != 16 || plant != 11)); then
	out=$out-c$ncommits-p$plant
fi
mkdir -p "$cache"
exec 9>"$cache/.lock-ktree"
flock 9
if [[ ! -f $out/.contend-ktree-done ]]; then
	rm -rf "$out"
	tmp=$(mktemp -d "$cache/.ktree-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "ktree.sh: unpacking $tarball into $out (about a minute)" >&2
	tar -xJf "$tarball" -C "$tmp" --strip-components=1
	export GIT_AUTHOR_NAME=contend-e2e GIT_AUTHOR_EMAIL=e2e@contend.invalid
	export GIT_COMMITTER_NAME=contend-e2e GIT_COMMITTER_EMAIL=e2e@contend.invalid
	n=0
	commit() {
		export GIT_AUTHOR_DATE="2024-01-01T00:$(printf %02d $n):00Z" GIT_COMMITTER_DATE="2024-01-01T00:$(printf %02d $n):00Z"
		git -C "$tmp" add -A -f
		git -C "$tmp" commit -q -m "$1"
		n=$((n + 1))
	}
	# Debian's .gitignore ends with /*: every file is added by force.
	git -C "$tmp" init -q -b main
	git -C "$tmp" config gc.auto 0
	commit "linux-source $ver"
	# Files every config compiles (tinyconfig included); mm/memory.c is
	# the planted commit's.
	files=(kernel/fork.c kernel/exit.c fs/read_write.c mm/mmap.c kernel/sched/core.c lib/string.c
		kernel/printk/printk.c fs/open.c mm/page_alloc.c kernel/sys.c mm/memory.c kernel/signal.c
		init/main.c fs/exec.c mm/filemap.c kernel/time/timer.c
		kernel/cred.c kernel/pid.c kernel/panic.c kernel/resource.c kernel/softirq.c kernel/notifier.c
		mm/mprotect.c mm/mremap.c mm/rmap.c mm/vmscan.c fs/namei.c fs/dcache.c fs/inode.c fs/super.c
		lib/vsprintf.c kernel/time/hrtimer.c)
	if ((plant != 11)); then
		files[10]=${files[$((plant - 1))]}
		files[$((plant - 1))]=mm/memory.c
	fi
	for i in $(seq 1 "$ncommits"); do
		f=${files[$((i - 1))]}
		if ((i == plant)); then
			# The planted slowdown: a 20 us busy wait in every anonymous fault.
			grep -q '^static vm_fault_t do_anonymous_page(struct vm_fault \*vmf)$' "$tmp/$f"
			sed -i '/^static vm_fault_t do_anonymous_page(struct vm_fault \*vmf)$/,/^{$/ s/^{$/{\n\tudelay(20);\t\/* contend e2e: the planted slowdown *\//' "$tmp/$f"
			sed -i '0,/^#include <linux\/mm.h>$/ s//#include <linux\/mm.h>\n#include <linux\/delay.h>/' "$tmp/$f"
			grep -q 'udelay(20)' "$tmp/$f"
			commit "mm: a busy wait of 20 us in do_anonymous_page (commit $i, the planted slowdown)"
		else
			printf '/* contend e2e: commit %d */\n' "$i" >>"$tmp/$f"
			commit "$(dirname "$f"): a comment at the end of $(basename "$f") (commit $i)"
		fi
	done
	git -C "$tmp" gc -q --auto
	mv "$tmp" "$out"
	touch "$out/.contend-ktree-done"
	trap - EXIT
fi
echo "$out"
