#!/usr/bin/env bash
# build-originals.sh [SEEDS-DIR] [OUT-DIR] - extract the original C programs
# from the seed mails (never committed here: they are read where they are)
# and build the reduced variants used to check contend's reproductions:
#
#   faultme40     Rostedt's faultme.c, THREADS 40, MEM 1 GiB, and its
#                 static byte made volatile (the -O2 dead-load fix)
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
extract faultme.c |
	sed -e 's/^#define THREADS 400/#define THREADS 40/' \
	    -e 's|^#define MEM (10ULL\*4096\*1024\*1024/4)|#define MEM (1ULL<<30)|' \
	    -e 's/static char x;/static volatile char x;/' >"$out/faultme40.c"
extract mainc.c |
	sed -e 's/^#define THREADS_NUM\t1000/#define THREADS_NUM\t100/' \
	    -e 's/^#define MUTEX_LOCKS\t300000/#define MUTEX_LOCKS\t30000/' >"$out/mainc100.c"
grep -q 'define THREADS 40' "$out/faultme40.c" && grep -q 'static volatile char x' "$out/faultme40.c" ||
	{ echo "build-originals: faultme.c not found or not as expected in $seeds" >&2; exit 1; }
grep -q 'define THREADS_NUM.100' "$out/mainc100.c" ||
	{ echo "build-originals: mainc.c not found or not as expected in $seeds" >&2; exit 1; }
gcc -O2 -pthread -o "$out/faultme40" "$out/faultme40.c"
gcc -O2 -pthread -o "$out/mainc100" "$out/mainc100.c"
echo "$out"
