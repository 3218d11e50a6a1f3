# kabi.sh: sourced by guest-image.sh and kernels.sh. Sets kabi to the
# Debian 6.1 kernel ABI of the end-to-end tests: $CONTEND_E2E_KABI, else
# the newest 6.1.0-NN for which apt on this machine knows both the generic
# and the PREEMPT_RT package (Debian publishes the 6.1 kernels of bookworm
# in bookworm-security); exits 2 when there is none. $1 names the caller
# in the message.

# The newest ABI with both kernels, from the host's apt lists.
newest_kabi() {
	apt-cache pkgnames linux-image-6.1.0- 2>/dev/null |
		sed -n 's/^linux-image-\(6\.1\.0-[0-9][0-9]*\)-rt-amd64$/\1/p' | sort -t- -k2,2n |
		while read -r k; do
			apt-cache show "linux-image-$k-amd64" >/dev/null 2>&1 && echo "$k"
		done | tail -n1
}
kabi=${CONTEND_E2E_KABI:-}
if [[ -z $kabi ]]; then
	kabi=$(newest_kabi)
	if [[ -z $kabi ]] && command -v apt-get >/dev/null; then
		apt-get update -qq >&2 || true
		kabi=$(newest_kabi)
	fi
fi
[[ $kabi =~ ^6\.1\.0-[0-9]+$ ]] || {
	echo "$1: no kernel ABI: set CONTEND_E2E_KABI to one that Debian bookworm ships in both flavours, such as 6.1.0-57 (got '${kabi}')" >&2
	exit 2
}
