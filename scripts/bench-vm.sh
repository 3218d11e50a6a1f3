#!/usr/bin/env bash
# bench-vm.sh - what a campaign in virtual machines costs (docs/vm.md): a
# --vm campaign of 10 boots a side of a small faultme run, timed whole
# (target: under 5 minutes under TCG), and, from its ledger, each boot's
# time from QEMU's start to the workload's start (target: at most 8 s
# under TCG); the accelerator is chosen as 'campaign run' does (KVM when
# it boots a kernel, else TCG), so the KVM figure is the one printed where
# KVM works.
#
#   make bench-vm         (or scripts/bench-vm.sh)
#
# The kernels: $VM_KERNEL_A and $VM_KERNEL_B, else Debian's 6.1 generic and
# -rt kernels from scripts/e2e/kernels.sh (cached). $BENCH_VM_BOOTS boots a
# side (10), $BENCH_VM_CMD the command (run faultme --threads 4 --mem 64MiB
# -n 10), $BENCH_VM_ACCEL the accelerator (auto). The machine load is
# printed with the figures: figures taken on a loaded machine are noise.
set -euo pipefail
cd "$(dirname "$0")/.."
boots=${BENCH_VM_BOOTS:-10}
accel=${BENCH_VM_ACCEL:-auto}
read -r -a cmd <<<"${BENCH_VM_CMD:-run faultme --threads 4 --mem 64MiB -n 10}"
ka=${VM_KERNEL_A:-} kb=${VM_KERNEL_B:-}
if [[ -z $ka || -z $kb ]]; then
	k=$(scripts/e2e/kernels.sh)
	ka=$k/vmlinuz-a kb=$k/vmlinuz-b
fi
tmp=$(mktemp -d /var/tmp/bench-vm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
go build -tags urfave_cli_no_docs -o "$tmp/contend" ./cmd/contend
echo "bench-vm: $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo), $(qemu-system-x86_64 -version | head -n1)"
echo "bench-vm: load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/contend" campaign init "$tmp/c" --vm --vm-accel "$accel" --a-kernel "$ka" --b-kernel "$kb" --boots "$boots" -- "${cmd[@]}"
start=$(date +%s.%N)
"$tmp/contend" campaign run "$tmp/c"
end=$(date +%s.%N)
echo "bench-vm: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Each boot: QEMU's start (the 'reboot' event) to the command's start in
# the guest (the next 'start' event with a guest kernel).
/usr/bin/python3 - "$tmp/c/ledger.jsonl" "$start" "$end" "$boots" <<'PY'
import json, sys, statistics
from datetime import datetime
ledger, start, end, boots = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
def t(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
up, reboot, accel = [], None, ""
for line in open(ledger):
    e = json.loads(line)
    if e["event"] == "reboot":
        reboot = t(e["time"])
    elif e["event"] == "start" and e.get("kernel") and reboot is not None:
        up.append(t(e["time"]) - reboot)
        accel = e.get("message", "").split("(")[1].split(",")[0] if "(" in e.get("message", "") else accel
        reboot = None
total = end - start
print(f"bench-vm: {len(up)} boots under {accel}: QEMU start to the workload's start: median {statistics.median(up):.2f} s, min {min(up):.2f} s, max {max(up):.2f} s (target: at most 8 s under TCG)")
print(f"bench-vm: the campaign of {boots} boots a side: {total:.0f} s = {total/60:.1f} min (target: under 5 minutes under TCG)")
PY
"$tmp/contend" campaign report "$tmp/c" | head -n 30
