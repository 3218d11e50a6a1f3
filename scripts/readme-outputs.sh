#!/usr/bin/env bash
# readme-outputs.sh [--check] - regenerate every command output README.md
# and the manual (docs/commands.md, docs/vm.md: the pages the README's
# longer examples moved to) show, from real runs on this machine, and
# docs/scaling-faultme.png.
#
# Each output sits in its file between
#
#   <!-- output: NAME -->
#   *Taken by scripts/readme-outputs.sh ...: the machine, the load.*
#
#       $ COMMAND
#       OUTPUT
#
#   <!-- end -->
#
# and this script replaces what is between the two markers: it runs the
# block's commands (the lines after "$ ") in a scratch directory, keeps the
# paragraphs of the output the block shows (the rest is "..."), and writes
# the stamp line: the date, the contend revision, the CPUs, the kernel and
# the load average before and after the block (above half a CPU, the
# figures are said to be noise). Small runs: about 20 s of runs here (the
# plugin's 6 x 2 s most of it) and a campaign of 8 QEMU guests (about a
# minute under TCG; the kernels fetched once by scripts/e2e/kernels.sh; a
# machine without tracefs keeps ab-mutex-trace's block), plus any wait for the machine-wide lock
# while another benchmark holds it (left out of the blocks, said on
# stderr).
#
#   scripts/readme-outputs.sh            run everything, rewrite the files and the PNG
#   scripts/readme-outputs.sh --check    check the files' blocks against this
#                                        script (names, commands, stamp, shape;
#                                        never the figures): make readme-check
#
# Nothing beside the clone is needed: the worked example imports the
# mail's figures of examples/. README=FILE writes another file in
# place of README.md (the docs/ pages are this checkout's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
readme=${README:-$repo/README.md}

# The blocks, in the order of pages (pages below) and within each page:
# NAME, then its commands (one a line, as they appear after "$ " in the
# block), then which paragraphs of the last command's output it shows
# (see keep below). The commands run in this order in one directory.
names=(first-run rostedt run-faultme ab-mutex-trace ab-evidence sweep plugin vm-campaign)
declare -A cmds paras file
# pages: the files that hold blocks, in order; file[NAME]: the block's.
pages=("$readme" "$repo/docs/commands.md" "$repo/docs/vm.md")
for n in first-run rostedt; do file[$n]=$readme; done
for n in run-faultme ab-mutex-trace ab-evidence sweep plugin; do file[$n]=$repo/docs/commands.md; done
file[vm-campaign]=$repo/docs/vm.md
cmds[first-run]="contend run faultme --threads 2 --mem 64MiB -n 6 --out first.jsonl"
paras[first-run]='^(warning|faultme) ^faultme[[:space:]]time ^metric ^note $'
cmds[rostedt]="contend import --preset faultme --select 1..5 --label 3.4.0-rc7-rt6 examples/rostedt-faultme.txt --out rt6.jsonl
contend import --preset faultme --select 6..9 --label '+ rwsem_rt patch' examples/rostedt-faultme.txt --out rt6p.jsonl
contend compare rt6.jsonl rt6p.jsonl"
paras[rostedt]='^import ^import:faultme ^metric $'
cmds[run-faultme]="contend run faultme --threads 40 --mem 256MiB -n 6"
paras[run-faultme]='^(warning|faultme) ^faultme[[:space:]]time ^metric ^note $'
cmds[ab-mutex-trace]="contend ab mutex --threads 100 --locks 30000 --trace-events lock -n 10"
paras[ab-mutex-trace]='^(warning|side) ^mutex[[:space:]]real'
cmds[ab-evidence]="contend ab faultme --mem 64MiB --a '--threads 1' --b '--threads 8' -n 6 --evidence perf --full"
paras[ab-evidence]='^faultme[[:space:]]time ^kernel.evidence:7'
# Debian's 6.1 generic and PREEMPT_RT kernels (scripts/e2e/kernels.sh, the
# end-to-end tests' cache), linked under these names in the scratch
# directory; without QEMU or the kernels the block is kept as it was.
cmds[vm-campaign]="contend campaign init kc --vm --a-kernel vmlinuz-6.1-generic --b-kernel vmlinuz-6.1-rt --boots 4 -- run faultme --threads 4 --mem 64MiB -n 10
contend campaign run kc
contend campaign report kc"
paras[vm-campaign]='^faultme: ^faultme[[:space:]]time ^(Boot|[[:space:]]*metric):8 $'
cmds[sweep]="contend sweep faultme --mem 256MiB --threads 1,2,4,8 -n 6 --out sweep.jsonl"
paras[sweep]='^(warning|faultme) ^threads[[:space:]]+throughput ^USL $'
cmds[plugin]="contend port --header > contend_plugin.h
cc -O2 -Wall -fPIC -shared -o pthread_mutex1.so pthread_mutex1.c
contend run plugin --so ./pthread_mutex1.so --threads 2 --duration 2s -n 6"
paras[plugin]='^(warning|plugin) ^plugin[[:space:]] ^metric $'

# stamp_re is what a stamp line looks like (check; no {n}: mawk has none);
# stamp writes one.
stamp_re='^\*Taken by `scripts/readme-outputs.sh` on [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9] UTC \(contend [^)]*\): .+, load average [0-9.]+ to [0-9.]+ (\(quiet\)|\(other work was running: the times are noise\))\.\*$'

# blocks prints NAME<TAB>FILE:LINE of each block of the pages, in order.
blocks() {
	awk '/^<!-- output: [a-z0-9-]+ -->$/ { n = $3; print n "\t" FILENAME ":" FNR }' "${pages[@]}"
}

# check: every block this script writes is in its page once, in order,
# with a stamp, a blank line, its commands as "    $ " lines first, every
# line of it indented, and nothing else between its markers.
markers() {
	local got want
	got=$(blocks | cut -f1 | tr '\n' ' ')
	want="${names[*]} "
	if [[ "$got" != "$want" ]]; then
		echo "readme-outputs: ${pages[*]} have blocks [${got% }], want [${want% }] (in this order, each once)" >&2
		return 1
	fi
}

check() {
	local fail=0
	markers || return 1
	for n in "${names[@]}"; do
		if ! grep -qx "<!-- output: $n -->" "${file[$n]}"; then
			echo "readme-outputs: block $n is not in ${file[$n]} (file[$n] in this script)" >&2
			fail=1
			continue
		fi
		NAME=$n CMDS=${cmds[$n]} STAMP=$stamp_re awk '
			BEGIN { name = ENVIRON["NAME"]; stamp = ENVIRON["STAMP"]; nc = split(ENVIRON["CMDS"], c, "\n") }
			$0 == "<!-- output: " name " -->" { on = 1; i = 0; next }
			on && $0 == "<!-- end -->" { on = 0; done = 1; if (i < 3 + nc) bad("too short"); next }
			on {
				i++
				if (i == 1 && $0 !~ stamp) bad("line 1 is not a stamp: " $0)
				else if (i == 2 && $0 != "") bad("no blank line after the stamp")
				else if (i >= 3 && i < 3 + nc && $0 != "    $ " c[i-2]) bad("command " i-2 " is not \"    $ " c[i-2] "\": " $0)
				else if (i >= 3 && $0 != "" && $0 !~ /^    /) bad("not indented: " $0)
			}
			END { if (!done) bad("no <!-- end -->"); exit fail }
			function bad(s) { print "readme-outputs: block " name ": " s > "/dev/stderr"; fail = 1 }
		' "${file[$n]}" || fail=1
	done
	return $fail
}

if [[ "${1:-}" == --check ]]; then
	check && echo "readme-outputs: the ${#names[@]} blocks of ${pages[*]} are in the script's format"
	exit
fi
[[ -z "${1:-}" ]] || { echo "usage: readme-outputs.sh [--check]" >&2; exit 2; }
markers || exit 1

(cd "$repo" && make -s build)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/repo" "$work/out"
ln -s "$repo/examples" "$work/repo/examples"       # the examples' inputs
# The plugin's source is the C block of the plugin's page.
awk '/^```c$/ { on = 1; next } /^```$/ { on = 0 } on' "${file[plugin]}" >"$work/repo/pthread_mutex1.c"
export PATH="$repo/bin:$PATH" CONTEND_PLOT_HELPER="$repo/bin/contend-plot"

rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$repo" diff --quiet HEAD -- cmd internal native bind analysis 2>/dev/null || rev="$rev, modified"
cpus=$(nproc)
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | tr -s ' ')
virt=""
grep -qw hypervisor /proc/cpuinfo && virt=" VM"
machine="$cpus-CPU$virt ($model), Linux $(uname -r)"

# stamp WHEN LOAD-BEFORE: the stamp line of a block (the load average
# before and after it; above half a CPU each, the figures are noise).
stamp() {
	local after says="(quiet)"
	after=$(cut -d' ' -f1 /proc/loadavg)
	awk -v a="$2" -v b="$after" -v c="$cpus" 'BEGIN { exit !(a > c / 2 || b > c / 2) }' && says="(other work was running: the times are noise)"
	printf '*Taken by `scripts/readme-outputs.sh` on %s (contend %s): %s, load average %s to %s %s.*\n' \
		"$1" "$rev" "$machine" "$2" "$after" "$says"
}

# keep SPEC: the paragraphs (blank-line separated) of stdin whose first
# line matches one of SPEC's extended regexps, each the first paragraph
# it matches ("$": the last paragraph; ":N" after one: at most N lines of
# it), each line indented by four spaces; "..." stands for what is left
# out.
keep() {
	awk -v spec="$1" -v name="$2" '
		BEGIN { RS = ""; FS = "\n"; n = split(spec, s, " ") }
		{ p[NR] = $0 }
		END {
			gap = 0
			for (i = 1; i <= NR; i++) {
				split(p[i], l, "\n"); max = -1; ok = 0
				for (j = 1; j <= n; j++) {
					re = s[j]; m = -1
					if (match(re, /:[0-9]+$/)) { m = substr(re, RSTART + 1) + 0; re = substr(re, 1, RSTART - 1) }
					if ((re == "$" && i == NR) || (re != "$" && !used[j] && l[1] ~ re)) { ok = 1; max = m; used[j] = 1; break }
				}
				if (!ok) { gap = 1; continue }
				if (gap && out && !dots) print "    ..."
				if (out) print ""
				gap = 0; dots = 0; out = 1; k = split(p[i], l, "\n")
				for (j = 1; j <= k; j++) {
					if (max >= 0 && j > max) { print "    ..."; dots = 1; break }
					print "    " l[j]
				}
			}
			if (gap && !dots) print "    ..."
			for (j = 1; j <= n; j++)
				if (s[j] != "$" && !used[j]) print "readme-outputs: " name ": no paragraph of the output starts with " s[j] " (update paras[" name "])" > "/dev/stderr"
			if (!out) exit 3
		}'
}

start=$SECONDS
for n in "${names[@]}"; do
	t0=$SECONDS
	f="$work/out/$n"
	if [[ $n == vm-campaign ]]; then
		if ! kdir=$("$repo/scripts/e2e/kernels.sh" 2>"$work/kernels.err"); then
			echo "readme-outputs: vm-campaign: no QEMU or no Debian kernels ($(tail -n1 "$work/kernels.err")): its block is kept as it was" >&2
			continue
		fi
		ln -sf "$kdir/vmlinuz-a" "$work/repo/vmlinuz-6.1-generic"
		ln -sf "$kdir/vmlinuz-b" "$work/repo/vmlinuz-6.1-rt"
	fi
	when=$(date -u '+%Y-%m-%d %H:%M UTC')
	load0=$(cut -d' ' -f1 /proc/loadavg)
	last=$(tail -n1 <<<"${cmds[$n]}")
	while IFS= read -r c; do
		[[ "$c" == "$last" ]] && break
		(cd "$work/repo" && bash -c "$c") >/dev/null 2>&1 || { echo "readme-outputs: $n: $c failed" >&2; exit 1; }
	done <<<"${cmds[$n]}"
	if ! out=$(cd "$work/repo" && bash -c "$last" 2>&1); then
		# A machine without tracefs (--trace-events) keeps the block as
		# it was, as one without QEMU keeps vm-campaign's.
		if grep -q 'tracefs is not mounted' <<<"$out"; then
			echo "readme-outputs: $n: no tracefs here: its block is kept as it was" >&2
			continue
		fi
		echo "readme-outputs: $n: $last failed:" >&2
		echo "$out" >&2
		exit 1
	fi
	# A wait for the machine-wide lock is this script's business, not the
	# command's output: said on stderr, left out of the block.
	if grep -q '^waiting: another benchmark holds' <<<"$out"; then
		echo "readme-outputs: $n: waited for the machine-wide lock ($(grep -m1 '^waiting: ' <<<"$out"))" >&2
		out=$(grep -v '^waiting: another benchmark holds' <<<"$out")
	fi
	{
		stamp "$when" "$load0"
		echo
		while IFS= read -r c; do echo "    \$ $c"; done <<<"${cmds[$n]}"
		keep "${paras[$n]}" "$n" <<<"$out" || { echo "readme-outputs: $n: nothing of the output was kept" >&2; exit 1; }
		echo
	} >"$f"
	echo "readme-outputs: $n: $((SECONDS - t0)) s" >&2
done
(cd "$work/repo" && contend plot sweep.jsonl --out "$repo/docs/scaling-faultme.png")

# Replace what is between each block's markers (a block not run is kept),
# page by page.
for page in "${pages[@]}"; do
awk -v dir="$work/out" '
	/^<!-- output: [a-z0-9-]+ -->$/ {
		print; f = dir "/" $3
		if ((getline l < f) > 0) { print l; while ((getline l < f) > 0) print l; close(f); skip = 1 }
		next
	}
	skip && $0 == "<!-- end -->" { skip = 0 }
	!skip' "$page" >"$work/page.md"
cat "$work/page.md" >"$page"
done
check
echo "readme-outputs: ${pages[*]} and docs/scaling-faultme.png rewritten in $((SECONDS - start)) s ($machine)" >&2
