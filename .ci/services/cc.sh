# shellcheck shell=bash
# A C compiler for the race detector (go test -race needs cgo). Sourced by
# .ci/run (set -euo pipefail, ci_cleanups defined). When the compiler Go
# would use (go env CC, gcc by default) is not on PATH it installs Debian's
# gcc package (with sudo when not root). It starts nothing and exports
# nothing. To use it by hand: ci_cleanups=(); source .ci/services/cc.sh

ci_cc_sudo() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

ci_cc="$(go env CC)"
ci_cc="${ci_cc%% *}"
if ! command -v "${ci_cc:-gcc}" >/dev/null 2>&1; then
	echo "cc: no ${ci_cc:-gcc} on PATH, installing Debian's gcc package"
	ci_cc_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
	ci_cc_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc libc6-dev
fi
echo "cc: $("${ci_cc:-gcc}" --version 2>/dev/null | head -n 1)"
