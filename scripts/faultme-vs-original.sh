#!/usr/bin/env bash
# faultme-vs-original.sh ORIGINAL [THREADS MEM] - run Rostedt's faultme
# (built from the seed mail with only THREADS/MEM changed and its static
# byte made volatile) and `contend run faultme` alternately, one repetition
# each per round, and print both series of "time = N usecs".
#
#   gcc -O2 -pthread -o faultme40 faultme40.c
#   scripts/faultme-vs-original.sh ./faultme40 40 1GiB
set -euo pipefail
orig=${1:?usage: $0 ORIGINAL [THREADS MEM [ROUNDS]]}
threads=${2:-40}
mem=${3:-1GiB}
rounds=${4:-8}
cd "$(dirname "$0")/.."
go build -o bin/contend ./cmd/contend
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$rounds"); do
	"$orig" | sed -n 's/^time = \([0-9]*\) usecs$/\1/p' >>"$tmp/orig"
	./bin/contend run faultme --threads "$threads" --mem "$mem" -n 1 --format original \
		--out "$tmp/c$i.jsonl" --quiet | sed -n 's/^time = \([0-9]*\) usecs$/\1/p' >>"$tmp/contend"
done
echo "original (us): $(tr '\n' ' ' <"$tmp/orig")"
echo "contend  (us): $(tr '\n' ' ' <"$tmp/contend")"
/usr/bin/python3 - "$tmp/orig" "$tmp/contend" <<'PY'
import sys, statistics as st
a = [float(x) for x in open(sys.argv[1])]
b = [float(x) for x in open(sys.argv[2])]
print(f"median original {st.median(a)/1e6:.3f} s, contend {st.median(b)/1e6:.3f} s, "
      f"ratio {st.median(b)/st.median(a):.3f}")
try:
    from scipy.stats import mannwhitneyu
    print(f"Mann-Whitney U p = {mannwhitneyu(a, b).pvalue:.3f}")
except ImportError:
    pass
PY
