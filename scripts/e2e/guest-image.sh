#!/usr/bin/env bash
# guest-image.sh: the guest of contend's end-to-end campaign test (e2e/).
#
#   scripts/e2e/guest-image.sh VARIANT OUTDIR CONTEND [SRC=GUESTPATH ...]
#
# Writes OUTDIR/root.img, a Debian 12 (bookworm) ext4 root file system with
# systemd, udev, kexec-tools and two Debian kernels of one ABI, 6.1.0-NN-amd64
# (side A) and 6.1.0-NN-rt-amd64 (PREEMPT_RT, side B), installed with their
# initrds in /boot (kexec inside the guest boots them); OUTDIR/vmlinuz-a,
# initrd-a, vmlinuz-b, initrd-b (the same files, for QEMU's -kernel); and
# OUTDIR/kernels.env (KA=release of A, KB=release of B, VARIANT=...).
# CONTEND (a static binary) is installed as /usr/local/bin/contend,
# scripts/e2e/guest.sh as /usr/local/lib/contend-e2e/guest.sh, and every
# further SRC as GUESTPATH (its directory must exist in the image).
#
# VARIANT:
#   minimal  minbase + systemd + udev + kexec-tools; no dbus, systemd-logind
#            masked: 'systemctl kexec' talks to PID 1 directly.
#   logind   the same with dbus and libpam-systemd: systemd-logind runs and
#            'systemctl kexec' goes through it.
# Both log root in on the serial console (ttyS0) and run
# 'guest.sh login' from its profile, and run 'guest.sh watch' once per boot
# after contend-campaign.service (contend-e2e-watch.service).
#
# The image without contend is built once per recipe and kept in
# $CONTEND_E2E_CACHE (default ~/.cache/contend-e2e) under the hash of the
# recipe (build_base below and guest-customize.sh), the variant, the kernel
# ABI and the mirrors; OUTDIR gets a sparse
# copy with contend and the guest files written in by debugfs (no mount, no
# loop device). The kernel ABI is $CONTEND_E2E_KABI (such as 6.1.0-57), else
# the newest 6.1.0-NN for which apt on this machine knows both packages.
# Missing host tools (mmdebstrap, debugfs/mkfs.ext4, the archive keyring,
# and QEMU for the test) are installed with apt-get. Runs as root (mmdebstrap's root mode).
set -euo pipefail

usage() {
	echo "usage: $0 minimal|logind OUTDIR CONTEND-BINARY [SRC=GUESTPATH ...]" >&2
	exit 2
}
(($# >= 3)) || usage
variant=$1 out=$2 contend=$3
shift 3
case $variant in
minimal | logind) ;;
*)
	echo "guest-image.sh: variant: $variant is not accepted; accepted: minimal, logind" >&2
	exit 2
	;;
esac
[[ -f $contend && -x $contend ]] || {
	echo "guest-image.sh: CONTEND-BINARY: $contend is not an executable file" >&2
	exit 2
}
for a in "$@"; do
	[[ $a == *=/* && -f ${a%%=*} ]] || {
		echo "guest-image.sh: $a is not accepted: SRC=GUESTPATH with SRC a file and GUESTPATH absolute" >&2
		exit 2
	}
done
if ((EUID != 0)); then
	echo "guest-image.sh: run as root (mmdebstrap builds the root file system in root mode)" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)

# Host tools, installed when missing (a fresh CI machine).
need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v mkfs.ext4 >/dev/null && command -v debugfs >/dev/null || need+=(e2fsprogs)
[[ -e /usr/share/keyrings/debian-archive-keyring.gpg ]] || need+=(debian-archive-keyring)
# Not for the image: the test that boots it (e2e/) needs QEMU.
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
if ((${#need[@]})); then
	echo "guest-image.sh: installing ${need[*]}" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

mirror=${CONTEND_E2E_MIRROR:-http://deb.debian.org/debian}
security=${CONTEND_E2E_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

# The kernel ABI (kabi.sh: $CONTEND_E2E_KABI, else the newest with both
# flavours in the host's apt lists).
. "$here/kabi.sh" guest-image.sh
ka=$kabi-amd64 kb=$kabi-rt-amd64

cache=${CONTEND_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contend-e2e}
mkdir -p "$cache"

build_base() {
	local tmp tree pkgs
	tmp=$(mktemp -d "$cache/.build-XXXXXX")
	tree=$tmp/tree
	pkgs=systemd,systemd-sysv,udev,kexec-tools,linux-image-$ka,linux-image-$kb
	[[ $variant == logind ]] && pkgs+=,dbus,libpam-systemd
	echo "guest-image.sh: building the $variant guest (kernels $ka, $kb) in $tmp" >&2
	mmdebstrap --variant=minbase --include="$pkgs" \
		--aptopt='Acquire::Languages "none"' \
		--customize-hook="$here/guest-customize.sh \"\$1\" $variant" \
		bookworm "$tree" \
		"deb $mirror bookworm main" \
		"deb $mirror bookworm-updates main" \
		"deb $security bookworm-security main"
	for s in a b; do
		local k=$ka
		[[ $s == b ]] && k=$kb
		cp "$tree/boot/vmlinuz-$k" "$tmp/vmlinuz-$s"
		cp "$tree/boot/initrd.img-$k" "$tmp/initrd-$s"
	done
	# Room for the campaign's results and a kexec's kernel copies.
	local mb
	mb=$(($(du -sm "$tree" | cut -f1) * 5 / 4 + 768))
	mkfs.ext4 -q -F -L contend-e2e -d "$tree" "$tmp/root.img" "${mb}M"
	rm -rf "$tree"
	printf 'KA=%s\nKB=%s\nVARIANT=%s\nKABI=%s\n' "$ka" "$kb" "$variant" "$kabi" >"$tmp/kernels.env"
	mv "$tmp" "$base"
}

# The cache key: the recipe (build_base as bash prints it, the customize
# hook), the variant, the kernels and the mirrors; not the rest of this
# script, which installs contend into a copy.
key=$( (
	declare -f build_base
	cat "$here/guest-customize.sh"
	echo "$variant $kabi $mirror $security"
) | sha256sum | cut -c1-16)
base=$cache/$variant-$kabi-$key

# One build per key at a time; a finished build is kept as it is.
exec 9>"$cache/.lock-$variant"
flock 9
[[ -f $base/root.img ]] || build_base
flock -u 9

mkdir -p "$out"
cp --sparse=always "$base/root.img" "$out/root.img"
cp "$base"/vmlinuz-? "$base"/initrd-? "$base/kernels.env" "$out/"
{
	echo "mkdir /usr/local/lib/contend-e2e"
	echo "write $contend /usr/local/bin/contend"
	echo "write $here/guest.sh /usr/local/lib/contend-e2e/guest.sh"
	echo "write $out/kernels.env /usr/local/lib/contend-e2e/kernels.env"
	for a in "$@"; do
		echo "write ${a%%=*} ${a#*=}"
	done
} >"$out/debugfs.cmd"
debugfs -w -f "$out/debugfs.cmd" "$out/root.img" >"$out/debugfs.log" 2>&1
# debugfs exits 0 whatever a command did: check that each file is there.
for p in /usr/local/bin/contend /usr/local/lib/contend-e2e/{guest.sh,kernels.env} "${@#*=}"; do
	[[ -n $p ]] || continue
	debugfs -R "stat $p" "$out/root.img" 2>/dev/null | grep -q 'Type: regular' || {
		echo "guest-image.sh: could not write $p into $out/root.img:" >&2
		cat "$out/debugfs.log" >&2
		exit 1
	}
done
echo "$out/root.img"
