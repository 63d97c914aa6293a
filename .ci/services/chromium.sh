# shellcheck shell=bash
# Chromium for the browser tests of the e2e module (headless, driven with
# chromedp). Sourced by .ci/run (set -euo pipefail, ci_cleanups defined).
# When no chromium, chromium-browser or google-chrome is on PATH it installs
# Debian's chromium package (with sudo when not root). It starts nothing
# and exports nothing: the tests find the browser on PATH (or at
# /usr/bin/chromium), and with CI=true a missing browser fails them.
# To use it by hand: ci_cleanups=(); source .ci/services/chromium.sh

ci_chromium_find() {
	local name
	for name in chromium chromium-browser google-chrome google-chrome-stable; do
		if command -v "$name" >/dev/null 2>&1; then
			command -v "$name"
			return 0
		fi
	done
	if [ -x /usr/bin/chromium ]; then
		echo /usr/bin/chromium
		return 0
	fi
	return 1
}

ci_chromium_sudo() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

if ! ci_chromium_find >/dev/null; then
	echo "chromium: no browser on PATH, installing Debian's chromium package"
	ci_chromium_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
	ci_chromium_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-liberation
fi
echo "chromium: $("$(ci_chromium_find)" --version 2>/dev/null || echo "installed at $(ci_chromium_find)")"
