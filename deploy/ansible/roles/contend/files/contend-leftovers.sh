#!/bin/sh
# contend-leftovers.sh BIN [TRACE-SAVE-FILE]: kill every process whose
# executable is BIN (a contend run and its repetition children, also left
# by an interrupted play), then remove the SysV sets of dead contend runs
# ('BIN cleanup'), then put the tracefs event list back as saved in
# TRACE-SAVE-FILE (written by 'contend-leftovers.sh --save-trace FILE').
# Prints what it did; exits 0 when nothing is left. CONTEND_TRACEFS=DIR
# stands for tracefs (tests).
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
killed=0
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/exe" 2>/dev/null)" = "$bin" ] || continue
	pid=${p#/proc/}
	[ "$pid" = "$$" ] && continue
	kill -KILL "$pid" 2>/dev/null && killed=$((killed + 1))
done
[ "$killed" -gt 0 ] && echo "killed $killed leftover contend processes" && sleep 1
[ -x "$bin" ] && "$bin" cleanup
if [ -n "$save" ] && [ -s "$save" ]; then
	t=$(head -n 1 "$save")
	if ! tail -n +2 "$save" | cmp -s - "$t/set_event"; then
		: >"$t/set_event"
		tail -n +2 "$save" | while read -r ev; do echo "$ev" >>"$t/set_event"; done
		echo "tracefs events put back as before the run"
	fi
fi
exit 0
