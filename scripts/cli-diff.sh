#!/bin/sh
# cli-diff.sh OLD NEW: compares two contend binaries' command line: the
# --help of every command and subcommand, a set of usage errors (exact
# text and exit status) and the outputs of short runs of run, ab, ab exec,
# sweep, exec and verify in every --format (figures masked: they differ
# from one run to the next). Prints the differences; exits 1 when there are
# any. A masked case whose two runs under OLD differ is named and not
# compared.
#
#   cd main && go build -tags urfave_cli_no_docs -o /tmp/contend-old ./cmd/contend
#   make build && scripts/cli-diff.sh /tmp/contend-old ./contend
set -u
old=$1 new=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CONTEND_LOCK=off
mkdir -p "$work/old" "$work/old2" "$work/new"
n=0

# one MODE ARGS...: runs ARGS under both binaries in a fresh directory each,
# keeps stdout, stderr and the exit status; MODE mask hides figures, paths
# and times, exact keeps the text.
one() {
	mode=$1
	shift
	n=$((n + 1))
	sides="old new"
	[ "$mode" = mask ] && sides="old old2 new"
	for side in $sides; do
		bin=$old
		[ $side = new ] && bin=$new
		d=$work/$side/run$n
		mkdir -p "$d"
		(cd "$d" && "$bin" "$@" >out 2>err; echo "exit $?" >status)
		{
			echo "### $*"
			cat "$d/status" "$d/out"
			echo "--- stderr"
			cat "$d/err"
		} >"$work/$side/case$n"
		if [ "$mode" = mask ]; then
			# Figures, their units and signs, and the lines whose
			# presence depends on the machine's state (load
			# warnings, kernel evidence rows, unstable runs) go.
			sed -E -e "s#$d#DIR#g" -e "s#$bin#BIN#g" \
				-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+)/TIME/g' \
				-e '/runnable thread|load average|unstable:|^ *"?k\.|evidence metrics are|"(load|procs_running|env\.)/d' \
				-e 's/[+-]?[0-9]+([.:][0-9]+)*(e[+-]?[0-9]+)?( ?(ns|µs|ms|s|KiB|MiB|GiB|B|%))?/N/g' \
				-e 's/(^| |\()(ns|µs|ms|s|KiB|MiB|GiB|B)( |\)|$)/\1U\3/g' \
				-e 's/[0-9a-fN]{6,}/H/g' -e 's/(^| )-( |$)/\1N\2/g' -e 's/[[:space:]]+/ /g' "$work/$side/case$n" >"$work/$side/case$n.m"
			mv "$work/$side/case$n.m" "$work/$side/case$n"
		fi
	done
}

helps() {
	one exact --help
	for c in list run show compare ab sweep plot exec import verify port env tune check cleanup completion help campaign; do
		one exact $c --help
	done
	for w in $("$new" list 2>/dev/null | sed -n 's/^\([a-z][a-z-]*\): .*/\1/p'); do
		for c in run ab sweep verify; do
			one exact $c $w --help
		done
		one exact help $w
	done
	one exact ab exec --help
	one exact help evidence
	for c in campaign; do
		for s in init step status report disarm; do
			one exact $c $s --help
		done
	done
}

errors() {
	while IFS= read -r line; do
		[ -z "$line" ] && continue
		eval "one exact $line"
	done <<'EOF'
run
run nosuch
run faultme --threads 0
run faultme --threads 4 --threads 8
run faultme --threads 4 --threads=4 -n 0
run faultme -n 1 --quiet --verbose
run faultme --no-wait --no-lock
run faultme --append
run faultme --replace
run faultme --append --replace --out x.json
run faultme --out ''
run faultme --out .
run faultme --format nope
run faultme --timeout 0s
run faultme --mem 1GB --threads 0
run osim 1 2 3
run osim --sems 4 1 2 3 4 5
run faultme extra
run faultme --evidence nope
ab
ab nosuch
ab faultme
ab faultme --aa --b '--threads 2'
ab faultme --a 'threads 2'
ab faultme --a '--nosuch 2'
ab faultme --a '--evidence none'
ab faultme --a '--threads 2 --threads 3'
ab faultme --a '--threads'
ab faultme --a "'unclosed"
ab faultme --b '--threads 2' --order ab --seed 3
ab faultme --b '--threads 2' --order nope
ab faultme --b '--threads 2' --min-runs 4
ab faultme --b '--threads 2' --until 5% -n 4
ab faultme --b '--threads 2' --until 5% --min-runs 9 --max-runs 6
ab faultme --b '--threads 2' --until 5% --append --out x.json
ab faultme --b '--threads 2' --until 0%
ab faultme --b '--threads 2' --alpha 0.7
ab faultme --b '--threads 2' --trace-events ''
ab faultme --b '--threads 2' --trace-events lock --evidence lock
ab faultme --b '--threads 2' --a-evidence nope
ab faultme --a '--threads 0' --b '--threads 2'
ab exec
ab exec --a /bin/true
ab exec --b /bin/true
ab exec --a /bin/true --b /bin/true
ab exec --a /bin/true --b /bin/false -- /bin/true
ab exec --a '' --b /bin/true
ab exec --a /bin/true --b "''"
ab exec --a ./nosuch --b /bin/true
ab exec --a nosuch-program --b /bin/true
ab exec --a /bin/true --b /etc/passwd
ab exec --a /bin/true --b /bin/false --metric 'real=x (\d+)'
ab exec --a /bin/true --b /bin/false --preset nope
ab exec --a /bin/true --b /bin/false --preset time
ab exec --a /bin/true --b /bin/false --metric 'x=(\d+)' --metric 'x=(\d+)'
sweep
sweep faultme
sweep faultme --threads 1,2 extra
sweep faultme --param nosuch=1,2
sweep faultme --param threads
sweep faultme --param threads=1,2 --threads 3
sweep faultme --mem 1MiB,2MiB
sweep faultme --threads 1,2 --order fixed --seed 3
sweep faultme --threads 1..100000
sweep faultme --threads 0,1
sweep faultme --threads 1,2 --param mem=1..2000x2
sweep faultme --threads 1,2 --order nope
exec
exec -- ./nosuch
exec -- nosuch-program
exec -- /etc
exec --metric 'real=(\d+)' -- /bin/true
exec --metric 'x' -- /bin/true
exec --preset time -- /bin/true
exec --preset nope -- /bin/true
verify
verify nosuch
verify faultme
verify faultme -- ./nosuch
verify faultme -n 2 -- /bin/true
verify faultme --margin 2 -- /bin/true
verify faultme --metric 'real=(\d+)' -- /bin/true
verify faultme --metric 'time=(\d+):B' -- /bin/true
verify faultme --metric 'x=(\d+)' -- /bin/true
verify plugin -- /bin/true
port
port extra
port --header --template x
port --template 'a b'
cleanup extra
cleanup --binary /nonexistent
tune extra
tune --reset --cpus 1
tune --cpus 99999 --dry-run
tune --cpus x --dry-run
tune --thp nope
tune --perf-rate 0
env extra
env --format csv
EOF
}

outputs() {
	q='--threads 2 --mem 4MiB --evidence none'
	for f in text json original; do
		one mask run faultme $q -n 3 --out r.json --format $f
		one mask exec -n 3 --out e.json --format $f -- /bin/echo 'time = 12 usecs'
	done
	one mask run faultme $q -n 2 --warmup 1 --out r.json -V
	one mask run faultme $q -n 2 --out r.json -q
	for f in text json; do
		one mask ab faultme --mem 4MiB --a '--threads 1' --b '--threads 2' -n 3 --out ab.json --format $f
		one mask ab exec --a '/bin/echo 1' --b '/bin/echo 2' -n 3 --out abx.json --format $f
	done
	one mask ab faultme --mem 4MiB --aa -n 3 --order abba --out ab.json
	one mask ab faultme --mem 4MiB --b '--threads 2' --until 50% --min-runs 3 --max-runs 4 --out ab.json
	one mask ab exec --aa -n 3 --out abx.json -- /bin/true
	one mask ab exec --a-prepare true --b-prepare 'true 1' -n 3 --out abx.json -- /bin/true
	one mask ab faultme --mem 4MiB --threads 1 --a-evidence none -n 3 --out ab.json
	for f in text json csv; do
		one mask sweep faultme --mem 4MiB --threads 1,2 -n 3 --seed 1 --out s.json --format $f
	done
	one mask sweep faultme --threads 1 --param mem=1MiB..4MiBx2 -n 2 --order fixed --out s.json
	one mask verify faultme --threads 2 --mem 4MiB -n 3 --metric 'time=(\d+):us' --out v.json -- /bin/echo 'time 3'
	one mask exec -n 2 --shell --evidence none --out e.json -- 'echo a; echo b'
	one mask exec -n 1 --evidence none --out f.json -- /bin/false
}

helps
errors
outputs
status=0
i=1
varies=0
while [ $i -le $n ]; do
	if [ -f "$work/old2/case$i" ] && ! cmp -s "$work/old/case$i" "$work/old2/case$i"; then
		# Two runs of OLD differ even masked: the case's rows depend
		# on the figures (a zero median, a shape warning).
		varies=$((varies + 1))
		echo "not compared (two runs of OLD differ): $(head -1 "$work/old/case$i")" >&2
	elif ! cmp -s "$work/old/case$i" "$work/new/case$i"; then
		diff -u "$work/old/case$i" "$work/new/case$i"
		status=1
	fi
	i=$((i + 1))
done
echo "cli-diff: $((n - varies)) of $n cases compared" >&2
exit $status
