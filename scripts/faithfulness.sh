#!/usr/bin/env bash
# faithfulness.sh [RUNS] - build the originals from the seed mails
# (build-originals.sh) and run `contend verify` of each reproduction against
# its original, alternating, at the reduced sizes:
#
#   faultme --threads 40 --mem 1GiB      against faultme40
#   mutex --threads 100 --locks 30000    against mainc100 (trylock variant)
#
# Timings on a shared or virtual machine are noisy: read the ratio's
# interval, not the verdict alone.
set -euo pipefail
runs=${1:-10}
cd "$(dirname "$0")/.."
make -s build
orig=$(scripts/build-originals.sh)
trap 'rm -rf "$orig"' EXIT
./bin/contend verify faultme --threads 40 --mem 1GiB -n "$runs" --out "$orig/verify-faultme.json" --replace -- "$orig/faultme40"
echo
./bin/contend verify mutex --threads 100 --locks 30000 -n "$runs" --out "$orig/verify-mutex.json" --replace -- "$orig/mainc100"
