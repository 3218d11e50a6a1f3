#!/usr/bin/env bash
# build-examples.sh [OUT-DIR] - build the example programs of examples/src
# (contend's own, small) that the manual's exec, ab exec and
# verify examples run, into OUT-DIR (default examples/bin of this checkout):
#
#   pagefault THREADS MiB          page faults of THREADS readers ("time = N usecs")
#   pagefault-O0                   the same built at -O0: "two builds of a program"
#   mutexloop THREADS LOCKS        a contended pthread mutex ("contended:N")
#   semloop SEMS TASKS LOOPS IN OUT  SysV semaphore lock/unlock ("total execution time")
#
# `make examples` runs it. Each is built with ${CC:-cc} -O2 -pthread. Prints OUT-DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../examples/src
case ${1:-} in -h | --help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
if (($# > 1)); then
	echo "build-examples: $# arguments, at most 1 (OUT-DIR)" >&2
	exit 2
fi
out=${1:-$here/../examples/bin}
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "build-examples: no C compiler $cc (Debian: apt-get install gcc; or set CC)" >&2; exit 1; }
mkdir -p "$out"
for p in pagefault mutexloop semloop; do
	"$cc" -O2 -Wall -pthread -o "$out/$p" "$src/$p.c"
done
"$cc" -O0 -Wall -pthread -o "$out/pagefault-O0" "$src/pagefault.c"
echo "$out"
