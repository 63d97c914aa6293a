// Package modversion holds the test that keeps the repository's modules
// releasable together (docs/releasing.md): every nested module (pgstore
// and the others) requires the core module at the version in the
// repository's VERSION file, the version they are tagged with, and keeps
// a replace directive to the core's directory for work in this
// repository; so does every nested module another one requires (cmd/psd2
// requires pgstore). It has no code of its own.
package modversion
