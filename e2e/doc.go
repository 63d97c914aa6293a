// Package e2e drives a real browser, headless Chromium through chromedp,
// through the PSU's journeys of the example TPP site (examples/webapp/site)
// and the bank sandbox's SCA page (sandbox/emulator): connecting the bank,
// a Norwegian domestic payment to its final status, a signing basket, a
// corporate PSU choosing an agreement, a PSU who cancels at the bank, and
// a replayed or forged callback. Both servers run in the test process;
// Chromium reaches the emulator's self-signed TLS certificate with
// --ignore-certificate-errors.
//
// Each journey asserts what each page shows and keeps a screenshot of
// every step in $PSD2_E2E_ARTIFACTS, or in psd2-e2e under the system's
// temporary directory (emptied at the start of a run), with summary.txt
// listing every journey's steps and time. The test log names the
// directory (go test -v).
//
// Chromium is found at /usr/bin/chromium or on PATH (chromium,
// chromium-browser, google-chrome). Without it the tests skip and say so,
// except when CI=true, where a missing browser fails them; .ci/run
// installs Debian's chromium package (.ci/services/chromium.sh). Run as
// root, Chromium gets --no-sandbox.
//
//	cd e2e && go test -v ./...
package e2e
