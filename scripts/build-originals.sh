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
#
# Each is built with gcc -O2 -pthread, as the mails say. Prints OUT-DIR.
set -euo pipefail
seeds=${1:-"$(dirname "$0")/../../shared/seeds"}
out=${2:-"$(mktemp -d)"}
mkdir -p "$out"
mail() { grep -l "filename=\"$1\"" "$seeds"/*.txt | head -1; }
# The attachment: from its first C line to the MIME boundary after it.
extract() {
	awk -v name="$1" '$0 ~ "filename=\"" name "\"" { f = 1; next } f && /^(\/\*|#include)/ { c = 1 } c && /^--/ { exit } c' "$(mail "$1")"
}
# faultme THREADS MEM NAME: the faultme.c variant NAME.c.
faultme() {
	extract faultme.c |
		sed -e "s/^#define THREADS 400/#define THREADS $1/" \
		    -e "s|^#define MEM (10ULL\*4096\*1024\*1024/4)|#define MEM ($2)|" \
		    -e 's/static char x;/static volatile char x;/' >"$out/$3.c"
	grep -q "define THREADS $1\$" "$out/$3.c" && grep -qF "#define MEM ($2)" "$out/$3.c" && grep -q 'static volatile char x' "$out/$3.c" ||
		{ echo "build-originals: faultme.c not found or not as expected in $seeds" >&2; exit 1; }
}
faultme 40 '1ULL<<30' faultme40
for t in 1 2 4; do
	faultme "$t" '256ULL<<20' "faultme${t}x256"
done
extract mainc.c |
	sed -e 's/^#define THREADS_NUM\t1000/#define THREADS_NUM\t100/' \
	    -e 's/^#define MUTEX_LOCKS\t300000/#define MUTEX_LOCKS\t30000/' >"$out/mainc100.c"
grep -q 'define THREADS_NUM.100' "$out/mainc100.c" ||
	{ echo "build-originals: mainc.c not found or not as expected in $seeds" >&2; exit 1; }
for f in faultme40 faultme1x256 faultme2x256 faultme4x256; do
	gcc -O2 -pthread -o "$out/$f" "$out/$f.c"
done
gcc -O2 -pthread -o "$out/mainc100" "$out/mainc100.c"
echo "$out"
