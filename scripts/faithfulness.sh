#!/usr/bin/env bash
# faithfulness.sh [RUNS] - build the originals from the seed mails
# (build-originals.sh) and run `contend verify` of each reproduction against
# its original, alternating, at the reduced sizes:
#
#   faultme --threads 40 --mem 1GiB      against faultme40
#   mutex --threads 100 --locks 30000    against mainc100 (trylock variant)
#
# Timings on a shared or virtual machine are noisy: read the ratio's
# interval, not the verdict alone. The result files are kept in results/
# (verify-faultme-DATE.json, verify-mutex-DATE.json); the built originals
# are removed at the end.
set -euo pipefail
runs=${1:-10}
cd "$(dirname "$0")/.."
make -s build
orig=$(scripts/build-originals.sh)
trap 'rm -rf "$orig"' EXIT
stamp=$(date +%Y%m%d-%H%M%S)
mkdir -p results
./bin/contend verify faultme --threads 40 --mem 1GiB -n "$runs" --out "results/verify-faultme-$stamp.json" -- "$orig/faultme40"
echo
./bin/contend verify mutex --threads 100 --locks 30000 -n "$runs" --out "results/verify-mutex-$stamp.json" -- "$orig/mainc100"
