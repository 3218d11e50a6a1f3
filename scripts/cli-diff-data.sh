#!/usr/bin/env bash
# cli-diff-data.sh - the data side of cmd/contend, old binary against new:
# help, completion, errors and outputs of campaign, import, check (its
# errors), plot (its errors), show, list, help and completion, each
# command's stdout, stderr and exit status diffed. Prints the commands
# that differ and exits 1 when any does.
#
#   (cd /work/main && go build -tags urfave_cli_no_docs -o /tmp/contend-old-data ./cmd/contend)
#   make build && scripts/cli-diff-data.sh /tmp/contend-old-data bin/contend
set -uo pipefail
old=$(realpath "${1:?usage: cli-diff-data.sh OLD NEW}")
new=$(realpath "${2:?usage: cli-diff-data.sh OLD NEW}")
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=$root/cmd/contend/testdata/seeds
logs=$root/internal/external/testdata
tmp=$(mktemp -d "$root/.cli-diff-XXXXXX") # on a disk: campaign init refuses tmpfs
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
volatile='del(.env, .start, .end, .created) | del(.reps[]?.start) | if .configs then .configs |= map(if .env then .env |= with_entries(select(.key | startswith("log."))) else . end) else . end'

# same ARGS...: runs old and new with ARGS in their own scratch
# directories (the paths in the outputs replaced by DIR) and diffs them.
same() {
	n=$((n + 1))
	local side out
	for side in old new; do
		out=$tmp/$side
		rm -rf "$out/w" && mkdir -p "$out/w"
		(cd "$out/w" && CONTEND_PLOT_HELPER=/nonexistent "${!side}" "$@" >"$out/stdout" 2>"$out/stderr" <"${STDIN:-/dev/null}"; echo "exit $?" >"$out/rc")
		# A JSON output and the files written: what differs from run to
		# run (the environment, the times) left out, the rest compared.
		if jq -e . "$out/stdout" >/dev/null 2>&1; then
			jq -S "$volatile" "$out/stdout" >"$out/j" && mv "$out/j" "$out/stdout"
		fi
		find "$out/w" -name '*.json' | sort | while read -r f; do jq -S "$volatile" "$f"; done >"$out/files" 2>/dev/null
		for f in stdout stderr files; do
			sed -i "s#${!side}#CONTEND#g; s#$out/w#DIR#g; s#$tmp#TMP#g" "$out/$f"
		done
	done
	local d
	if ! d=$(diff <(cat "$tmp/old/rc" "$tmp/old/stdout" "$tmp/old/stderr" "$tmp/old/files") <(cat "$tmp/new/rc" "$tmp/new/stdout" "$tmp/new/stderr" "$tmp/new/files")); then
		echo "DIFFERS: contend $*"
		echo "$d" | head -20
		fail=1
	fi
}

# help of every command and subcommand of the data side
for c in campaign import check plot show list help completion; do
	same help "$c"
	same "$c" --help
done
for s in init step arm disarm unit status report; do
	same campaign "$s" --help
	same campaign help "$s"
done
same --help
same help
same help evidence
same help maxrss
same help faultme
same help nosuch
same help a b

# completion: the scripts, and the words after every command and the
# value of every enum flag
same completion bash
same completion zsh
same completion
same completion fish
same completion bash zsh
for c in "" run ab sweep exec verify compare show plot import check tune campaign fleet list help completion; do
	same __complete $c ""
	same __complete $c --
	same __complete $c -
done
for w in run ab sweep; do
	same __complete "$w" faultme ""
	same __complete "$w" faultme --
	same __complete "$w" faultme --thp ""
	same __complete "$w" faultme --format ""
	same __complete "$w" faultme --evidence ""
	same __complete "$w" faultme --evidence default,
	same __complete "$w" mutex --variant ""
done
same __complete ab faultme --a ""
same __complete ab faultme --a "'--threads 4 "
same __complete ab exec --a ""
same __complete compare --a ""
same __complete compare --format ""
same __complete show --format ""
same __complete import --format ""
same __complete import --preset ""
same __complete campaign ""
same __complete campaign init --a-kexec ""
same __complete campaign report --format ""
same __complete campaign report -
same __complete campaign init kc -- run ""
same __complete exec -n 3 -- ""
same __complete nosuch ""
same __complete --help ""

# list, show
same list
same list x
for f in "$seeds"/*.json; do
	for fmt in text json original csv; do
		same show --format "$fmt" "$f"
	done
done
same show
same show a b
same show nosuch.json
same show --format yaml "$seeds/xiao-ab.json"
same show "$logs/time.txt"

# import: every log of the tests, each format; its errors
for p in faultme mutex osim time; do
	same import --preset "$p" -q --out x.json "$logs/$p.txt"
	same import --preset "$p" --format json --out x.json "$logs/$p.txt"
done
same import --preset faultme --select 2..3 --label lbl --out x.json "$logs/faultme.txt"
same import --preset faultme --select 2.. --from 2 --to 30 --out x.json "$logs/faultme.txt"
same import --preset time --unquote --from 1 --to 9 --out x.json "$logs/time.txt"
same import --metric 'lat=took (\d+) ns:ns:lower' --out x.json "$logs/faultme.txt"
same import --metric 'lat=nomatch (\d+)' --out x.json "$logs/faultme.txt"
same import --out x.json "$logs/faultme.txt"
same import --preset faultme
STDIN=$logs/faultme.txt same import --preset faultme --out x.json -
STDIN=$logs/faultme.txt same import --preset faultme --format json --select 2 --out x.json -
same import --preset faultme a b
same import --preset faultme --select x "$logs/faultme.txt"
same import --preset faultme --from 0 "$logs/faultme.txt"
same import --preset faultme --from 9 --to 3 "$logs/faultme.txt"
same import --preset faultme nosuch.log
same import --preset faultme /
same import --preset nosuch "$logs/faultme.txt"
same import --preset faultme --format yaml "$logs/faultme.txt"

# check's and plot's errors (check's report reads the machine: its shape
# is tested in internal/tune's and cmd/contend's tests)
# check on a fake machine (CONTEND_SYSROOT): the lock is the machine's
sys=$tmp/sysroot
mkdir -p "$sys/proc/77" "$sys/sys/devices/system/cpu/smt" "$sys/sys/devices/system/cpu/cpu0/thermal_throttle"
echo 0-3 >"$sys/sys/devices/system/cpu/online"
echo 1 >"$sys/sys/devices/system/cpu/smt/active"
echo 3 >"$sys/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count"
echo "root=/dev/sda nohz_full=2-3" >"$sys/proc/cmdline"
echo "0.50 0.40 0.30 1/100 42" >"$sys/proc/loadavg"
echo "77 (prog) R 1 77 77 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0" >"$sys/proc/77/stat"
export CONTEND_SYSROOT=$sys CONTEND_TUNE_STATE=$sys/tune.json
same check --interval 10ms
unset CONTEND_SYSROOT CONTEND_TUNE_STATE
same check a
same check --interval 1ns
same check --interval 2m
same plot
same plot a.json
same plot --out x.gif a.json
same plot --out / a.json
same plot --out nodir/x.svg a.json
same plot --out x.svg nosuch.json
same plot --out x.svg a b c d e f g h i
same plot --out x.svg --metric nosuch "$seeds/xiao-ab.json"
same plot --out x.svg "$seeds/xiao-ab.json"

# campaign: init and its errors, status, unit, arm, disarm, report
cmd=(-- run mutex --threads 2 -n 1)
kern=(--a-boot-command 'echo a' --a-release 6.1 --b-boot-command 'echo b' --b-release 6.2)
same campaign init kc "${kern[@]}" "${cmd[@]}"
same campaign init kc "${kern[@]}" --boots 1 "${cmd[@]}"
same campaign init kc "${kern[@]}" --order ABC "${cmd[@]}"
same campaign init kc "${kern[@]}" --settle-psi 101 "${cmd[@]}"
same campaign init kc "${kern[@]}" -- run nosuch
same campaign init kc "${kern[@]}" -- run mutex --threads 0
same campaign init kc --a-release 6.1 --b-release 6.2 "${cmd[@]}"
same campaign init
for s in step arm disarm unit status report; do
	same campaign "$s"
	same campaign "$s" nosuch
done
# a campaign of each (made by the new binary): the read-only commands
"$new" campaign init "$tmp/kc" "${kern[@]}" "${cmd[@]}" >/dev/null
same campaign status "$tmp/kc"
same campaign report "$tmp/kc"
same campaign report --plot x.gif "$tmp/kc"
same compare "$tmp/kc"
same campaign unit --out x.txt "$tmp/kc"
same campaign unit --out u.service "$tmp/kc"
echo "cli-diff-data: $n commands compared"
exit $fail
