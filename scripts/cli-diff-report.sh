#!/bin/sh
# cli-diff-report.sh OLD NEW: runs compare and compare --by (fleets) of the
# seed result files in every --format with two contend binaries and diffs
# their outputs (stdout, stderr, exit code). Exits 1 on a difference.
#
#   cd /work/main && go build -tags urfave_cli_no_docs -o /tmp/contend-old ./cmd/contend
#   make build && scripts/cli-diff-report.sh /tmp/contend-old bin/contend
#
# NEWFLAGS (default empty) is added to the new binary's text-format
# commands: compare's text is short by default, and NEWFLAGS=--full
# asks for the full text the old binary prints (compare --help then differs
# by design: the --all and --full flags and the paragraph on the default).
set -u
old=${1:?usage: cli-diff-report.sh OLD-CONTEND NEW-CONTEND}
new=${2:?usage: cli-diff-report.sh OLD-CONTEND NEW-CONTEND}
here=$(cd "$(dirname "$0")/.." && pwd)
seeds=$here/cmd/contend/testdata/seeds
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "kept $tmp"

# A fleet of three hosts made of seed ab files, with a status file.
for h in h1 h2 h3; do
	mkdir -p "$tmp/fleet/$h"
	echo "$h" >"$tmp/fleet/$h/.contend-host"
done
cp "$seeds/mitake-ab.json" "$tmp/fleet/h1/ab.json"
cp "$seeds/mitake-ab.json" "$tmp/fleet/h2/ab.json"
cp "$seeds/xiao-ab.json" "$tmp/fleet/h3/ab.json"
# A fleet of run files, before.json and after.json per host (h3 reversed).
for h in g1 g2 g3; do
	mkdir -p "$tmp/runs/$h"
	echo "$h" >"$tmp/runs/$h/.contend-host"
	cp "$seeds/galbraith-semop-rt.json" "$tmp/runs/$h/before.json"
	cp "$seeds/galbraith-semop-rtm.json" "$tmp/runs/$h/after.json"
done
cp "$seeds/galbraith-semop-rtm.json" "$tmp/runs/g3/before.json"
cp "$seeds/galbraith-semop-rt.json" "$tmp/runs/g3/after.json"
printf 'h1 ok\nh2 ok\nh3 ok\nh4 unreachable no facts\n' >"$tmp/fleet/fleet-status.txt"

n=0
fail=0
check() { # FORMAT ARGS...
	fmt=$1
	shift
	n=$((n + 1))
	extra=""
	[ "$fmt" = text ] && extra=${NEWFLAGS:-}
	case " $* " in *" --by "*) extra="" ;; esac # a fleet's report has one form
	(cd "$tmp" && "$old" compare --format "$fmt" "$@" >old.out 2>old.err; echo "exit $?" >>old.err)
	# shellcheck disable=SC2086
	(cd "$tmp" && "$new" compare $extra --format "$fmt" "$@" >new.out 2>new.err; echo "exit $?" >>new.err)
	if ! cmp -s "$tmp/old.out" "$tmp/new.out" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
		fail=$((fail + 1))
		echo "DIFFERS: compare --format $fmt $*"
		diff "$tmp/old.out" "$tmp/new.out" | head -20
		diff "$tmp/old.err" "$tmp/new.err" | head -10
	fi
}

for f in text markdown csv json bench; do
	check "$f" "$seeds/rostedt-without.json" "$seeds/rostedt-with.json"
	check "$f" "$seeds/mitake-ab.json:a" "$seeds/mitake-ab.json:b"
	check "$f" "$seeds/xiao-ab.json:a" "$seeds/xiao-ab.json:b"
	check "$f" --test welch "$seeds/galbraith-semop-rt.json" "$seeds/galbraith-semop-rtm.json"
	check "$f" "$seeds/galbraith-osim-rt.json" "$seeds/galbraith-osim-rtm.json" "$seeds/galbraith-osim-rt.json"
	check "$f" --threshold 2% --one-family "$seeds/galbraith-osim-rt.json" "$seeds/galbraith-osim-rtm.json"
	check "$f" --a "$seeds/mitake-ab.json:a" "$seeds/mitake-ab.json:a" --b "$seeds/mitake-ab.json:b"
	check "$f" --metric time "$seeds/mitake-ab.json:a" "$seeds/mitake-ab.json:b"
	check "$f" "$seeds/mitake-ab.json" "$seeds/xiao-ab.json:a" # errors
done
for f in text json markdown; do
	check "$f" --by host fleet
	check "$f" --by host --hosts fleet/fleet-status.txt fleet/h1 fleet/h2
	check "$f" --by env.kernel.release fleet
	check "$f" --by host --a fleet/h1/ab.json:a fleet/h2/ab.json:a --b fleet/h1/ab.json:b fleet/h2/ab.json:b
	check "$f" --by nohost fleet
	check "$f" --by host --a runs/g1/before.json runs/g2/before.json runs/g3/before.json --b runs/g1/after.json runs/g2/after.json runs/g3/after.json
	check "$f" --by host runs
	check "$f" --by env.hostname --a runs/g1/before.json runs/g2/before.json --b runs/g1/after.json runs/g2/after.json
done
# The help and usage errors of compare.
for args in "--help" "--test foo a b" "--by host" "--a x.json" "--plot p.svg a b" "nofile.json other.json" "one.json"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	(cd "$tmp" && "$old" compare $args >old.out 2>old.err; echo "exit $?" >>old.err)
	# shellcheck disable=SC2086
	(cd "$tmp" && "$new" compare $args >new.out 2>new.err; echo "exit $?" >>new.err)
	if ! cmp -s "$tmp/old.out" "$tmp/new.out" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
		fail=$((fail + 1))
		echo "DIFFERS: compare $args"
		diff "$tmp/old.out" "$tmp/new.out" | head -20
		diff "$tmp/old.err" "$tmp/new.err" | head -10
	fi
done
# show (the run summary) of every seed file.
for f in "$seeds"/*.json; do
	n=$((n + 1))
	"$old" show "$f" >"$tmp/old.out" 2>&1
	"$new" show "$f" >"$tmp/new.out" 2>&1
	if ! cmp -s "$tmp/old.out" "$tmp/new.out"; then
		fail=$((fail + 1))
		echo "DIFFERS: show $f"
		diff "$tmp/old.out" "$tmp/new.out" | head -20
	fi
done
echo "$n commands, $fail differ"
[ "$fail" -eq 0 ]
