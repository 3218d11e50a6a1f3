#!/usr/bin/env bash
# kernels.sh: the two Debian kernels of the end-to-end VM campaigns (e2e/vm_test.go).
#
#   scripts/e2e/kernels.sh
#
# Prints the directory that holds vmlinuz-a (linux-image-6.1.0-NN-amd64),
# vmlinuz-b (linux-image-6.1.0-NN-rt-amd64, PREEMPT_RT, the same ABI) and
# kernels.env (KA=, KB= their releases), cached in
# $CONTEND_E2E_CACHE/kernels-6.1.0-NN (default ~/.cache/contend-e2e). The
# ABI as guest-image.sh chooses it (kabi.sh). The kernels come from a
# guest image guest-image.sh already built for that ABI, else from
# 'apt-get download' and 'dpkg-deb -x' (nothing is installed on this
# machine). QEMU is installed with apt-get when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v qemu-system-x86_64 >/dev/null; then
	if ((EUID != 0)); then
		echo "kernels.sh: qemu-system-x86_64 is missing: install qemu-system-x86 (as root)" >&2
		exit 2
	fi
	echo "kernels.sh: installing qemu-system-x86" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 >&2
fi
. "$here/kabi.sh" kernels.sh
ka=$kabi-amd64 kb=$kabi-rt-amd64
cache=${CONTEND_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contend-e2e}
out=$cache/kernels-$kabi
mkdir -p "$cache"
exec 9>"$cache/.lock-kernels"
flock 9
if [[ ! -f $out/kernels.env ]]; then
	tmp=$(mktemp -d "$cache/.kernels-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	img=$(ls -d "$cache"/minimal-"$kabi"-*/ "$cache"/logind-"$kabi"-*/ 2>/dev/null | head -n1 || true)
	if [[ -n $img && -f $img/vmlinuz-a && -f $img/vmlinuz-b ]]; then
		cp "$img/vmlinuz-a" "$img/vmlinuz-b" "$tmp/"
	else
		(cd "$tmp" && apt-get download -qq "linux-image-$ka" "linux-image-$kb" >&2)
		for s in a b; do
			k=$ka
			[[ $s == b ]] && k=$kb
			dpkg-deb -x "$tmp"/linux-image-"$k"_*.deb "$tmp/x-$s"
			cp "$tmp/x-$s/boot/vmlinuz-$k" "$tmp/vmlinuz-$s"
		done
		rm -rf "$tmp"/x-? "$tmp"/*.deb
	fi
	printf 'KA=%s\nKB=%s\nKABI=%s\n' "$ka" "$kb" "$kabi" >"$tmp/kernels.env"
	rm -rf "$out"
	mv "$tmp" "$out"
	trap - EXIT
fi
echo "$out"
