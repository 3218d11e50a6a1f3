#!/usr/bin/env bash
# ab-drift-aa.sh [RUNS] [PAIRS] - the A/A false-positive rate of
# `contend ab exec` through the CLI while the measured level changes
# (issue 38): a program prints t = 100 + noise (SD 5) + a level that
# depends on how many times it has run (a counter in a temporary file, so
# the shape is the same at any load):
#
#   drift     the level rises by 1 SD (5) over the run, linearly
#   switch1   the level is 0 or 1 SD on alternate runs (on every B of --order ab)
#   switch3   the level is 0 or 1 SD, switching every 3 runs
#
# Each scenario runs RUNS A/A runs (--aa, PAIRS pairs each, default 40
# and 20) in --order ab and --order random, and counts how often the
# headline calls a change (its U test) and how often the report's
# "within pairs" signed-rank test does (p <= 0.05). Prints one line per
# scenario and order, with the load before and after. CONTEND (default:
# contend on PATH) is the binary; SCENARIOS (default "drift switch1
# switch3") and ORDERS (default "ab random") pick the lines.
set -euo pipefail
runs=${1:-40}
pairs=${2:-20}
contend=${CONTEND:-contend}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/prog.sh" <<'PROG'
#!/bin/sh
c=$(cat "$CNT" 2>/dev/null || echo 0); echo $((c+1)) > "$CNT"
awk -v c="$c" -v n="$TOTAL" -v sc="$SCENARIO" -v seed="$$$c" 'BEGIN{
  srand(seed); u1=rand(); u2=rand(); z=sqrt(-2*log(u1+1e-12))*cos(6.2831853*u2)
  l=0
  if (sc=="drift") l=c/(n-1)
  if (sc=="switch1") l=c%2
  if (sc=="switch3") l=int(c/3)%2
  printf "t=%.4f\n", 100+5*z+5*l }'
PROG
chmod +x "$dir/prog.sh"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $runs A/A runs of $pairs pairs per line"
printf '%-9s %-7s %-22s %s\n' scenario order "headline (U test)" "within pairs (signed rank)"
for sc in ${SCENARIOS:-drift switch1 switch3}; do
	for order in ${ORDERS:-ab random}; do
		head=0 paired=0 done=0
		for i in $(seq "$runs"); do
			export CNT="$dir/cnt" SCENARIO=$sc TOTAL=$((2 * pairs))
			rm -f "$CNT"
			seed=()
			if [[ $order == random ]]; then seed=(--seed "$i"); fi
			out=$("$contend" ab exec --aa -n "$pairs" --order "$order" "${seed[@]}" -q \
				--metric 't=t=([0-9.]+):ms:lower' --out "$dir/r.json" --replace -- "$dir/prog.sh" 2>/dev/null | tr -s ' \n' ' ') || true
			done=$((done + 1))
			if grep -qE "n=$pairs\+$pairs\): (slower|faster)" <<<"$out"; then head=$((head + 1)); fi
			p=$(grep -oE 'within pairs: .*p=([<0-9.e-]+) \(Wilcoxon' <<<"$out" | grep -oE 'p=[<0-9.e-]+' | tail -1 | cut -c3-)
			if [[ $p == "<"* ]] || awk -v p="$p" 'BEGIN{exit !(p != "" && p <= 0.05)}'; then paired=$((paired + 1)); fi
		done
		printf '%-9s %-7s %3d of %3d (%5.1f%%)     %3d of %3d (%5.1f%%)\n' "$sc" "$order" "$head" "$done" \
			"$(awk -v a=$head -v b=$done 'BEGIN{print 100*a/b}')" "$paired" "$done" "$(awk -v a=$paired -v b=$done 'BEGIN{print 100*a/b}')"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
