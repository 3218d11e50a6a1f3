#!/usr/bin/env bash
# install-check.sh [REPO] - follow README.md's Install section on a fresh
# clone of REPO (default: this checkout's HEAD) as a new user would: the
# commands of the block marked "<!-- install-check: ID-VERSION -->" for this
# distribution (from /etc/os-release; none for others), then those of the
# "all" block (build, make install into ~/.local, a first run and show),
# in a clean environment: HOME a new directory, PATH the login default,
# no GOTOOLCHAIN, GOFLAGS or GOPATH from the caller. The module cache is
# shared with the caller's (INSTALL_CHECK_FRESH=1: a new one, everything
# downloaded). The distribution block installs packages, as root or with
# sudo, as the README's lines say ($SUDO: nothing for root, sudo for a
# user; a minimal Debian has no sudo, and nothing here stands in for
# it). INSTALL_CHECK_SYSTEM=0 skips the
# distribution block (the Go already installed is used). Exit status: the
# first failing command's; it is printed with its line in README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:-$here}
readme=$here/README.md
. /etc/os-release
distro=$ID-$VERSION_ID

# block NAME: the indented commands of README's block NAME, each as
# "LINE<TAB>COMMAND".
block() {
	awk -v want="$1" '
		/^<!-- install-check: / { name = $3; next }
		name == want && /^    / { sub(/^    /, ""); printf "%d\t%s\n", NR, $0 }
	' "$readme"
}
if [ -z "$(block all)" ]; then
	echo "install-check: README.md has no <!-- install-check: all --> block" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home"
git clone --quiet "$repo" "$tmp/contend"
modcache=$(go env GOMODCACHE 2>/dev/null || true)
[ "${INSTALL_CHECK_FRESH:-0}" = 1 ] && modcache=$tmp/home/go/pkg/mod

# The script run: each README line, echoed with its line number first.
{
	echo 'set -euo pipefail'
	emit() {
		while IFS=$'\t' read -r n cmd; do
			printf 'echo %q\n' "+ README.md:$n: $cmd"
			printf '%s || { rc=$?; echo "install-check: README.md:%s failed (exit $rc):" %q >&2; exit $rc; }\n' "$cmd" "$n" "$cmd"
		done
	}
	if [ "${INSTALL_CHECK_SYSTEM:-1}" != 0 ]; then
		block "$distro" | emit
	fi
	block all | emit
} >"$tmp/steps.sh"
if [ "${INSTALL_CHECK_SYSTEM:-1}" != 0 ] && [ -z "$(block "$distro")" ]; then
	echo "install-check: README.md has no block for $distro; using the Go on the login PATH" >&2
fi

cd "$tmp"
env -i HOME="$tmp/home" USER="${USER:-$(id -un)}" TERM=dumb LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	${modcache:+GOMODCACHE="$modcache"} DEBIAN_FRONTEND=noninteractive \
	bash "$tmp/steps.sh"
echo "install-check: README.md's install and first run passed on $distro ($PRETTY_NAME)"
