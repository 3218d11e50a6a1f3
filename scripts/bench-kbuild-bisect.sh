#!/usr/bin/env bash
# bench-kbuild-bisect.sh - what a kernel bisect from a developer's tree
# costs on this machine (issue 40's benchmark, not in CI; docs/bisect.md):
# 'contend bisect --vm --kernel-tree' over a 32-commit range of Debian's
# linux-source-6.1 (6.12 when installed) made a git repository by
# scripts/e2e/ktree.sh (each commit changing one file, commit
# $BENCH_KBUILD_PLANT planting a 20 us busy wait in do_anonymous_page),
# with the config a developer would use for the question: defconfig plus
# scripts/kernel/contend-guest.config; from a clean start (an empty make
# O= directory and an empty ccache), builds, TCG boots and runs included.
# It prints the clean build's time, the median and largest rebuild of a
# probe, the boots and runs, the whole bisect's time, and what a clean
# build per probe would have cost. Goal: at most 2 hours on a 2-core
# machine. The load is printed before and after: figures taken on a
# loaded machine say what it cost then, not what it costs.
#
#   make bench-kbuild-bisect          (or scripts/bench-kbuild-bisect.sh)
#
# BENCH_KBUILD_TINY=1: the script's check, minutes instead of hours: 4
# commits of the end-to-end test's tree (commits 9 to 13, the planted one
# 11), tinyconfig plus the fragment, one vCPU, and the end-to-end test's
# build directory and ccache (not a clean start: a clean tinyconfig build
# alone takes 10 to 40 minutes here; the revisions the test built are
# kept images, the others rebuild what differs).
# BENCH_KBUILD_BUILD_DIR: a build directory to use (default: a new one;
# the end-to-end test's in the tiny mode).
# BENCH_KBUILD_DRY=1: print what would run, run nothing.
# BENCH_KBUILD_SOURCE (linux-source-6.12 when installed, else
# linux-source-6.1), BENCH_KBUILD_PLANT (21), BENCH_KBUILD_CONFIG
# (defconfig; tinyconfig in the tiny mode), BENCH_KBUILD_ACCEL (tcg),
# BENCH_KBUILD_KEEP=1 keeps the work directory (its path printed).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tiny=${BENCH_KBUILD_TINY:-0}
dry=${BENCH_KBUILD_DRY:-0}
accel=${BENCH_KBUILD_ACCEL:-tcg}
cache=${CONTEND_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contend-e2e}
say() { echo "bench-kbuild-bisect: $*"; }
die() {
	echo "bench-kbuild-bisect: $*" >&2
	exit 2
}
case $tiny in 0 | 1) ;; *) die "BENCH_KBUILD_TINY=$tiny: give 0 or 1" ;; esac
case $dry in 0 | 1) ;; *) die "BENCH_KBUILD_DRY=$dry: give 0 or 1" ;; esac
case $accel in auto | kvm | tcg) ;; *) die "BENCH_KBUILD_ACCEL=$accel: give auto, kvm or tcg" ;; esac

if ((tiny)); then
	# The end-to-end test's tree and ccache (scripts/e2e/ktree.sh's
	# defaults): commits 9 to 13.
	source=linux-source-6.1 ncommits=16 plant=11 good=9 bad=13
	config=${BENCH_KBUILD_CONFIG:-tinyconfig}
	ccache_dir=$cache/ccache cpus=1 mem=512MiB
	build_dir=${BENCH_KBUILD_BUILD_DIR:-e2e}
else
	source=${BENCH_KBUILD_SOURCE:-}
	if [[ -z $source ]]; then
		source=linux-source-6.1
		[[ -f /usr/src/linux-source-6.12.tar.xz ]] && source=linux-source-6.12
	fi
	ncommits=32 plant=${BENCH_KBUILD_PLANT:-21} good=0 bad=32
	config=${BENCH_KBUILD_CONFIG:-defconfig}
	ccache_dir= # a new, empty one in the work directory
	cpus=2 mem=1GiB
	build_dir=${BENCH_KBUILD_BUILD_DIR:-}
fi
[[ $plant =~ ^[0-9]+$ ]] && ((plant >= 1 && plant <= ncommits)) || die "BENCH_KBUILD_PLANT=$plant: give 1 to $ncommits"
case $config in defconfig | tinyconfig) ;; *) die "BENCH_KBUILD_CONFIG=$config: give defconfig or tinyconfig" ;; esac

work=$(mktemp -d /var/tmp/bench-kbuild-XXXXXX)
if [[ ${BENCH_KBUILD_KEEP:-0} == 1 ]]; then
	say "the work directory $work is kept"
else
	trap 'rm -rf "$work"' EXIT
fi
[[ -n $ccache_dir ]] || ccache_dir=$work/ccache
mkdir -p "$ccache_dir"
[[ -n $build_dir ]] || build_dir=$work/kbuild
frag=$root/scripts/kernel/contend-guest.config
# What a developer would run: 2 vCPUs, the boot-level design of docs/bisect.md.
vmflags=(--vm --vm-accel "$accel" --vm-cpus "$cpus" --vm-mem "$mem" --vm-timeout 10m)
sflags=(--boots-per-probe 2 --runs-per-boot 3 --calibrate 4 --calibrate-max 8 --verify-runs 4 --metric time --format json)
measure=(-- run faultme --threads 1 --mem 64MiB)
runs_per_boot=3

if ((dry)); then
	say "dry run: nothing is built or booted"
	say "KTREE_SOURCE=$source KTREE_COMMITS=$ncommits KTREE_PLANT=$plant scripts/e2e/ktree.sh"
	say "CCACHE_DIR=$ccache_dir contend bisect --good COMMIT$good --bad COMMIT$bad --dir $work/bs --kernel-tree TREE --kernel-config $config --kernel-config-fragment $frag --kernel-build-dir $build_dir ${vmflags[*]} ${sflags[*]} ${measure[*]}"
	exit 0
fi

say "$(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo), $(qemu-system-x86_64 -version | head -n1), ccache: $(command -v ccache || echo 'not installed')"
if ((tiny)); then
	say "tiny mode: commits $good to $bad of the end-to-end test's tree, $config, the end-to-end test's build directory and ccache (not a clean start)"
else
	say "$source, commits $good to $bad, the slowdown at $plant, $config plus contend-guest.config; an empty O= directory and ccache"
fi
say "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s.%N)
tree=$(KTREE_SOURCE=$source KTREE_COMMITS=$ncommits KTREE_PLANT=$plant scripts/e2e/ktree.sh)
t1=$(date +%s.%N)
[[ $build_dir != e2e ]] || build_dir=$cache/kbuild-${tree##*/ktree-}
mapfile -t hashes < <(git -C "$tree" rev-list --reverse --first-parent HEAD)
((${#hashes[@]} == ncommits + 1)) || die "the tree $tree has ${#hashes[@]} commits, want $((ncommits + 1))"
go build -tags urfave_cli_no_docs -o "$work/contend" ./cmd/contend
export CCACHE_DIR=$ccache_dir
start=$(date +%s.%N)
# The progress (stderr) to the terminal and bisect.log, the JSON result
# to result.json.
{ "$work/contend" bisect --good "${hashes[$good]}" --bad "${hashes[$bad]}" --dir "$work/bs" \
	--kernel-tree "$tree" --kernel-config "$config" --kernel-config-fragment "$frag" --kernel-build-dir "$build_dir" \
	"${vmflags[@]}" "${sflags[@]}" "${measure[@]}" 2>&1 >"$work/result.json"; } | tee "$work/bisect.log" >&2
end=$(date +%s.%N)
say "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$work/result.json" "$start" "$end" "$t0" "$t1" "${hashes[$plant]}" "$runs_per_boot" "$tiny" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))
start, end, t0, t1 = (float(x) for x in sys.argv[2:6])
planted, rpb, tiny = sys.argv[6], int(sys.argv[7]), sys.argv[8] == "1"
first = "the first build (incremental: the e2e's build directory)" if tiny else "the clean build"
b = res.get("kernel_builds") or {}
total = end - start
boots = res["runs"]["total"]
def m(s):
    return f"{s / 60:.1f} min" if s >= 120 else f"{s:.1f} s"
top = res["top"][0] if res.get("top") else {}
found = "the planted commit" if top.get("hash") == planted else f"NOT the planted commit {planted[:12]}"
verified = (res.get("verify") or {}).get("verified")
print(f"bench-kbuild-bisect: the tree: {m(t1 - t0)} (made once, then cached)")
print(f"bench-kbuild-bisect: culprit {top.get('hash', '')[:12]} at P {top.get('p', 0):.3f}, {found}, verified {verified}; stop {res['stop']}")
print(f"bench-kbuild-bisect: {b.get('builds', 0)} builds, {b.get('kept', 0)} images kept: {first} {m(b.get('first_seconds', 0))} "
      f"({b.get('first_objects_rebuilt', 0)} objects); a probe's rebuild median {m(b.get('later_median_seconds', 0))}, max {m(b.get('later_max_seconds', 0))} "
      f"(objects median {b.get('later_median_objects_rebuilt', 0):g}, max {b.get('later_max_objects_rebuilt', 0)}); all builds {m(b.get('total_seconds', 0))}")
other = total - b.get("total_seconds", 0)
print(f"bench-kbuild-bisect: {boots} boots, {boots * rpb} runs; boots, runs and the search {m(other)}")
print(f"bench-kbuild-bisect: the whole bisect {m(total)} (goal: at most 2 hours)")
clean = b.get("builds", 0) * b.get("first_seconds", 0) + other
if b.get("builds") and not tiny:
    print(f"bench-kbuild-bisect: with a clean build per probe ({b['builds']} x {m(b['first_seconds'])}) it would take about {m(clean)}: {clean / total:.1f} times as long")
PY
