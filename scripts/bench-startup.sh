#!/usr/bin/env bash
# bench-startup.sh - how much the repetition child's start-up adds to every
# whole-process time (real/user/sys), measured with hyperfine against a C
# program doing the same tiny work (a faultme of one thread and one page).
#
#   make bench            (needs hyperfine: apt-get install hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "bench-startup: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags urfave_cli_no_docs -o "$tmp/contend" ./cmd/contend
cat >"$tmp/noop.c" <<'C'
/* The same one-page faultme as the child below, in plain C. */
#include <pthread.h>
#include <sys/mman.h>
static volatile char x;
static char *data;
static void *f(void *a) { (void)a; x = data[0]; return 0; }
int main(void)
{
	pthread_t t;
	data = mmap(0, 4096, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	pthread_create(&t, 0, f, 0);
	pthread_join(t, 0);
	return 0;
}
C
gcc -O2 -pthread -o "$tmp/noop" "$tmp/noop.c"
# The floor: a Go program that makes one empty cgo call.
mkdir -p "$tmp/gobare"
cat >"$tmp/gobare/main.go" <<'GO'
package main

// static int f(void) { return 0; }
import "C"

func main() { C.f() }
GO
printf 'module bare\ngo 1.26\n' >"$tmp/gobare/go.mod"
(cd "$tmp/gobare" && go build -o ../bare .)
params='{"threads":"1","mem":"4096","stride":"4096","thp":"leave"}'
hyperfine -N --warmup 20 --runs 300 --export-json "$tmp/h.json" \
	-n "C program (1 thread, 1 page)" "$tmp/noop" \
	-n "bare cgo Go program" "$tmp/bare" \
	-n "contend child (1 thread, 1 page)" "$tmp/contend __child faultme '$params'"
/usr/bin/python3 - "$tmp/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
c, b, g = r[0], r[1], r[2]
print(f"median start-to-exit: C {c['median']*1e3:.2f} ms, bare cgo Go {b['median']*1e3:.2f} ms, "
      f"contend child {g['median']*1e3:.2f} ms")
print(f"overhead over C {(g['median']-c['median'])*1e3:.2f} ms (target <= 5 ms); "
      f"over the bare cgo floor {(g['median']-b['median'])*1e3:.2f} ms")
PY
