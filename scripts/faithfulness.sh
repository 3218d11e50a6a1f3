#!/usr/bin/env bash
# faithfulness.sh [SET] [RUNS] - build the originals from the seed mails
# (build-originals.sh) and run `contend verify` of each reproduction against
# its original, alternating, at reduced sizes. SET (default all):
#
#   faultme        faultme --threads 40 --mem 1GiB     against faultme40
#   mutex          mutex --threads 100 --locks 30000   against mainc100 (trylock variant)
#   mutex-1000     mutex --threads 1000 --locks 20000  against mainc1000 (the
#                  original's thread count, where thread creation and the
#                  child's start-up show)
#   faultme-small  faultme --threads 1, 2 and 4 --mem 256MiB
#                                                      against faultme1x256, 2x256, 4x256
#   mutex-full     mutex at the original's size, 1000 threads x 300000 locks,
#                  against mainc.c as it is (about 13 s a run here)
#   faultme-full   faultme at the original's size, 400 threads x 10 GiB,
#                  against faultme400 (34-82 s a run here, late 2026)
#   osim           osim --sems 8 --tasks 16 --loops 100000 against Manfred
#                  Spraul's sem-lockunlock.c (ipcscale, GPL: not in this
#                  repository) at the same size, when OSIM_SRC names it:
#                  git clone https://github.com/manfred-colorfu/ipcscale;
#                  OSIM_SRC=ipcscale/sem-lockunlock.c
#   osim-full      the same at the original's size, 64 256 1000000 0 0
#   all            the four reduced sets, and osim when OSIM_SRC is set;
#                  full the two at full size, and osim-full likewise
#
# RUNS is the repetitions a side: 20 by default, 30 for faultme-small (its
# timed region is tens of ms, where a 5% margin needs more runs), 100 for
# mutex-1000 and 40 for mutex-full (1000 threads on 2 CPUs spread a run by
# about 4%: at 20 a side the interval reaches past 5%). A number alone as
# the first argument is RUNS for all.
#
# The last lines sum up each verify: the ratio contend/original of the
# timed region's median with its 95% interval, the verdict against the 5%
# margin, and the verdict within rounds with its 90% interval (each round
# one run of a side a moment after the other's: a drift of the machine
# between rounds does not widen it). Timings on a shared or virtual
# machine are noisy: read the ratio's interval, not the verdict alone, and
# say the load (printed). The result files are kept in results/
# (verify-NAME-DATE.jsonl); the built originals are removed at the end.
set -euo pipefail
set_=all
runs=
if [[ $# -gt 0 && ! $1 =~ ^[0-9]+$ ]]; then
	set_=$1
	shift
fi
runs=${1:-}
case $set_ in
all | full | faultme | mutex | mutex-1000 | faultme-small | mutex-full | faultme-full | osim | osim-full) ;;
*)
	echo "faithfulness.sh: unknown set '$set_'; accepted: all, full, faultme, mutex, mutex-1000, faultme-small, mutex-full, faultme-full, osim, osim-full" >&2
	exit 2
	;;
esac
osim_src=${OSIM_SRC:-}
if [[ -n $osim_src && ! -f $osim_src ]]; then
	echo "faithfulness.sh: OSIM_SRC '$osim_src' is not a file; give ipcscale's sem-lockunlock.c (git clone https://github.com/manfred-colorfu/ipcscale)" >&2
	exit 2
fi
if [[ $set_ == osim* && -z $osim_src ]]; then
	echo "faithfulness.sh: set '$set_' needs OSIM_SRC, the path of ipcscale's sem-lockunlock.c (git clone https://github.com/manfred-colorfu/ipcscale; GPL, so not in this repository)" >&2
	exit 2
fi
if [[ -n $runs && ! $runs =~ ^[1-9][0-9]*$ ]]; then
	echo "faithfulness.sh: RUNS '$runs' is not a positive number" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
make -s build
orig=$(scripts/build-originals.sh)
summary=$(mktemp)
trap 'rm -rf "$orig" "$summary"' EXIT
if [[ -n $osim_src ]]; then
	gcc -O2 -pthread -o "$orig/osim" "$osim_src"
fi
stamp=$(date +%Y%m%d-%H%M%S)
mkdir -p results

# verify NAME DESCRIPTION RUNS ORIGINAL WORKLOAD [PARAMETERS...] [-- ARGS...]: one
# contend verify, its report on stdout and its summary line kept.
verify() {
	local name=$1 desc=$2 n=$3 program=$4 out params=() args=()
	shift 4
	while [[ $# -gt 0 && $1 != -- ]]; do
		params+=("$1")
		shift
	done
	[[ $# -gt 0 ]] && shift
	args=("$@")
	out=$(./bin/contend verify "${params[@]}" -n "$n" --out "results/verify-$name-$stamp.jsonl" -- "$orig/$program" "${args[@]}")
	printf '%s\n\n' "$out"
	# The row of the metric the verdict is on (faultme's time, the
	# mutex's real): NAME MEDIAN UNIT MEDIAN UNIT RATIO [LO, HI] P.
	awk -v d="$desc" -v n="$n" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
		!($1 in row) { row[$1] = sprintf("%-34s %s ratio %s %s %s (n %s a side, load %s)", d, $1, $6, $7, $8, n, load) }
		/^verdict on / { m = $3; sub(/,$/, "", m); getline; v = $0; sub(/^ +/, "", v); sub(/:.*/, "", v) }
		/^within rounds, / {
			getline; w = $0; sub(/^ +/, "", w); sub(/:.*/, "", w)
			if (match($0, /\[[0-9.]+, [0-9.]+\]/)) w = w " " substr($0, RSTART, RLENGTH)
		}
		END { print row[m] "  " v (w == "" ? "" : "; within rounds " w) }' <<<"$out" >>"$summary"
}

if [[ $set_ == all || $set_ == faultme ]]; then
	verify faultme "faultme 40 threads x 1 GiB" "${runs:-20}" faultme40 faultme --threads 40 --mem 1GiB
fi
if [[ $set_ == all || $set_ == mutex ]]; then
	verify mutex "mutex 100 threads x 30000 locks" "${runs:-20}" mainc100 mutex --threads 100 --locks 30000
fi
if [[ $set_ == all || $set_ == mutex-1000 ]]; then
	verify mutex1000 "mutex 1000 threads x 20000 locks" "${runs:-100}" mainc1000 mutex --threads 1000 --locks 20000
fi
if [[ $set_ == all || $set_ == faultme-small ]]; then
	for t in 1 2 4; do
		th=threads
		[[ $t == 1 ]] && th=thread
		verify "faultme${t}x256" "faultme $t $th x 256 MiB" "${runs:-30}" "faultme${t}x256" faultme --threads "$t" --mem 256MiB
	done
fi
if [[ $set_ == full || $set_ == mutex-full ]]; then
	verify mutexfull "mutex 1000 threads x 300000 locks" "${runs:-40}" mainc mutex --threads 1000 --locks 300000
fi
if [[ -n $osim_src && ($set_ == all || $set_ == osim) ]]; then
	verify osim "osim 8 sems, 16 tasks, 100000 loops" "${runs:-20}" osim osim --sems 8 --tasks 16 --loops 100000 -- 8 16 100000 0 0
elif [[ $set_ == all || $set_ == full ]]; then
	echo "osim: not verified (OSIM_SRC does not name ipcscale's sem-lockunlock.c)" >>"$summary"
fi
if [[ -n $osim_src && ($set_ == full || $set_ == osim-full) ]]; then
	verify osimfull "osim 64 sems, 256 tasks, 1000000 loops" "${runs:-20}" osim osim --sems 64 --tasks 256 --loops 1000000 -- 64 256 1000000 0 0
fi
if [[ $set_ == full || $set_ == faultme-full ]]; then
	verify faultmefull "faultme 400 threads x 10 GiB" "${runs:-20}" faultme400 faultme --threads 400 --mem 10GiB
fi
echo "contend/original, timed region (median ratio, 95% CI), verdict at 5%; within rounds (90% CI):"
cat "$summary"
