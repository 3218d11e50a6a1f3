#!/bin/sh
# contend-leftovers.sh BIN [TRACE-SAVE-FILE]: kill every process whose
# executable is BIN (a contend run and its repetition children, also left
# by an interrupted play), then remove the SysV sets of dead contend runs
# ('BIN cleanup --binary BIN': only what runs of this binary left, so
# that another contend's leftovers on the machine are neither touched nor
# blamed on this host), then put the tracefs event list back as saved in
# TRACE-SAVE-FILE (written by 'contend-leftovers.sh --save-trace FILE').
# Prints what it did. Exit status: 0 nothing was left; 1 leftovers were
# found (processes, SysV sets or tracefs settings of killed runs) and
# cleaned up, so that a play can fail or report on it; 2 something could
# not be cleaned up. CONTEND_TRACEFS=DIR stands for tracefs (tests).
set -u
if [ "$1" = "--save-trace" ]; then
	for t in ${CONTEND_TRACEFS:-} /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -r "$t/set_event" ]; then
			echo "$t" >"$2" && cat "$t/set_event" >>"$2"
			exit 0
		fi
	done
	: >"$2"
	exit 0
fi
bin=$1
save=${2:-}
found=0
failed=0
killed=0
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/exe" 2>/dev/null)" = "$bin" ] || continue
	pid=${p#/proc/}
	[ "$pid" = "$$" ] && continue
	kill -KILL "$pid" 2>/dev/null && killed=$((killed + 1))
done
if [ "$killed" -gt 0 ]; then
	echo "killed $killed leftover contend processes"
	found=1
	sleep 1
fi
if [ -x "$bin" ]; then
	# contend cleanup says "removed semaphore set ..." and "restored the
	# ..." for what it cleaned, "no semaphore set left by contend" else.
	if out=$("$bin" cleanup --binary "$bin" 2>&1); then
		printf '%s\n' "$out" | grep -E '^(removed|restored) ' && found=1
	else
		printf '%s\n' "$out"
		failed=1
	fi
fi
if [ -n "$save" ] && [ -s "$save" ]; then
	t=$(head -n 1 "$save")
	if ! tail -n +2 "$save" | cmp -s - "$t/set_event"; then
		if (: >"$t/set_event" && tail -n +2 "$save" | while read -r ev; do echo "$ev" >>"$t/set_event" || exit 1; done) 2>/dev/null; then
			echo "tracefs events put back as before the run"
			found=1
		else
			echo "cannot put the tracefs events back as before the run ($t/set_event)"
			failed=1
		fi
	fi
fi
[ "$failed" = 1 ] && exit 2
exit "$found"
