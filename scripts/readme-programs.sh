#!/usr/bin/env bash
# readme-programs.sh DIR - build in DIR the programs the README's examples
# run, so that they can be followed (and tested) as written:
#
#   faultme40, mainc100        the originals from the seed mails (build-originals.sh)
#   faultme-old, faultme-new   "two builds of your program": copies of faultme40
#   osim                       ipcscale's sem-lockunlock.c, only if $OSIM_SRC names
#                              a copy of it (it is never fetched or copied here)
#
# CONTEND_README_SIZES=small (what the README test uses unless told
# CONTEND_README_SIZES=full) builds the originals at 4 threads, faultme over
# 1 MiB and mainc with 1000 locks, so that every example runs in seconds.
set -euo pipefail
dir=${1:?usage: readme-programs.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
"$here/build-originals.sh" "${SEEDS:-$here/../../shared/seeds}" "$dir" >/dev/null
if [[ "${CONTEND_README_SIZES:-full}" == small ]]; then
	sed -i -e 's/^#define THREADS 40$/#define THREADS 4/' \
	    -e 's|^#define MEM (1ULL<<30)|#define MEM (1ULL<<20)|' "$dir/faultme40.c"
	sed -i -e 's/^#define THREADS_NUM\t100$/#define THREADS_NUM\t4/' \
	    -e 's/^#define MUTEX_LOCKS\t30000$/#define MUTEX_LOCKS\t1000/' "$dir/mainc100.c"
	grep -q 'define THREADS 4$' "$dir/faultme40.c" && grep -q 'define THREADS_NUM.4$' "$dir/mainc100.c" ||
		{ echo "readme-programs: could not shrink the originals" >&2; exit 1; }
	gcc -O2 -pthread -o "$dir/faultme40" "$dir/faultme40.c"
	gcc -O2 -pthread -o "$dir/mainc100" "$dir/mainc100.c"
fi
cp "$dir/faultme40" "$dir/faultme-old"
cp "$dir/faultme40" "$dir/faultme-new"
if [[ -n "${OSIM_SRC:-}" && -f "$OSIM_SRC" ]]; then
	gcc -O2 -pthread -w -o "$dir/osim" "$OSIM_SRC"
fi
echo "$dir"
