#!/usr/bin/env bash
# build-originals.sh [SEEDS-DIR] [OUT-DIR] - extract the original C programs
# from the seed mails (never committed here: they are read where they are)
# and build the reduced variants used to check contend's reproductions:
#
#   faultme40     Rostedt's faultme.c, THREADS 40, MEM 1 GiB, and its
#                 static byte made volatile (the -O2 dead-load fix)
#   faultme1x256, faultme2x256, faultme4x256
#                 the same at THREADS 1, 2 and 4, MEM 256 MiB
#   mainc100      Mitake's mainc.c, 100 threads x 30000 locks
#   mainc1000     the same at its own 1000 threads, 20000 locks
#   faultme400, mainc
#                 the originals at their own sizes: faultme.c at 400 threads
#                 x 10 GiB (its byte volatile), mainc.c as it is, 1000
#                 threads x 300000 locks (57 s and 12 s a run here, late 2026)
#
# Each is built with gcc -O2 -pthread, as the mails say. Prints OUT-DIR.
set -euo pipefail
usage="usage: build-originals.sh [SEEDS-DIR] [OUT-DIR] (SEEDS-DIR: the folder of seed mails, default ../shared/seeds; OUT-DIR: where the programs go, default a new temporary folder)"
case ${1:-} in -h | --help) echo "$usage"; exit 0 ;; esac
if (($# > 2)); then
	echo "build-originals: $# arguments, at most 2; $usage" >&2
	exit 2
fi
seeds=${1:-"$(dirname "$0")/../../shared/seeds"}
# The mail holding attachment $1, or nothing.
mail() { grep -l "filename=\"$1\"" "$seeds"/*.txt 2>/dev/null | head -1 || true; }
# Both mails are looked for before anything is written: a wrong SEEDS-DIR
# (such as "build-originals.sh . .", the repository for the seeds) leaves
# no file behind.
for f in faultme.c mainc.c; do
	if [ -z "$(mail "$f")" ]; then
		echo "build-originals: no seed mail with $f in SEEDS-DIR $seeds (the first argument is the folder of seed mails, *.txt; the second is OUT-DIR); $usage" >&2
		exit 2
	fi
done
if [ -n "${2:-}" ]; then
	out=$2
	[ -d "$out" ] || made=$out
else
	out=$(mktemp -d)
	made=$out
fi
mkdir -p "$out"
# What this run wrote, removed if it fails: no empty or half-edited .c
# stays in OUT-DIR.
written=()
cleanup() {
	if (($? != 0)); then
		((${#written[@]})) && rm -f -- "${written[@]}"
		[ -n "${made:-}" ] && rmdir -- "$made" 2>/dev/null
	fi
	return 0
}
trap cleanup EXIT
# The attachment: from its first C line to the MIME boundary after it.
extract() {
	awk -v name="$1" '$0 ~ "filename=\"" name "\"" { f = 1; next } f && /^(\/\*|#include)/ { c = 1 } c && /^--/ { exit } c' "$(mail "$1")"
}
# faultme THREADS MEM NAME: the faultme.c variant NAME.c.
faultme() {
	written+=("$out/$3.c" "$out/$3")
	extract faultme.c |
		sed -e "s/^#define THREADS 400/#define THREADS $1/" \
		    -e "s|^#define MEM (10ULL\*4096\*1024\*1024/4)|#define MEM ($2)|" \
		    -e 's/static char x;/static volatile char x;/' >"$out/$3.c"
	grep -q "define THREADS $1\$" "$out/$3.c" && grep -qF "#define MEM ($2)" "$out/$3.c" && grep -q 'static volatile char x' "$out/$3.c" ||
		{ echo "build-originals: faultme.c not as expected in $(mail faultme.c)" >&2; exit 1; }
}
faultme 40 '1ULL<<30' faultme40
faultme 400 '10ULL*4096*1024*1024/4' faultme400
for t in 1 2 4; do
	faultme "$t" '256ULL<<20' "faultme${t}x256"
done
written+=("$out/mainc100.c" "$out/mainc100")
extract mainc.c |
	sed -e 's/^#define THREADS_NUM\t1000/#define THREADS_NUM\t100/' \
	    -e 's/^#define MUTEX_LOCKS\t300000/#define MUTEX_LOCKS\t30000/' >"$out/mainc100.c"
grep -q 'define THREADS_NUM.100' "$out/mainc100.c" ||
	{ echo "build-originals: mainc.c not as expected in $(mail mainc.c)" >&2; exit 1; }
written+=("$out/mainc1000.c" "$out/mainc1000")
extract mainc.c | sed -e 's/^#define MUTEX_LOCKS\t300000/#define MUTEX_LOCKS\t20000/' >"$out/mainc1000.c"
grep -q 'define THREADS_NUM.1000$' "$out/mainc1000.c" && grep -q 'define MUTEX_LOCKS.20000$' "$out/mainc1000.c" ||
	{ echo "build-originals: mainc.c not as expected in $(mail mainc.c)" >&2; exit 1; }
written+=("$out/mainc.c" "$out/mainc")
extract mainc.c >"$out/mainc.c"
grep -q 'define THREADS_NUM.1000$' "$out/mainc.c" && grep -q 'define MUTEX_LOCKS.300000$' "$out/mainc.c" ||
	{ echo "build-originals: mainc.c not as expected in $(mail mainc.c)" >&2; exit 1; }
gcc -O2 -pthread -o "$out/mainc" "$out/mainc.c"
for f in faultme40 faultme400 faultme1x256 faultme2x256 faultme4x256; do
	gcc -O2 -pthread -o "$out/$f" "$out/$f.c"
done
gcc -O2 -pthread -o "$out/mainc100" "$out/mainc100.c"
gcc -O2 -pthread -o "$out/mainc1000" "$out/mainc1000.c"
echo "$out"
