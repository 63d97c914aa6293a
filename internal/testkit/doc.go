// Package testkit groups the SDK's test harnesses, kept apart from the
// production helpers in internal/: testtpp (the scripted TPP of the
// service tests), testpsu (a PSU signed in at the emulator), faultnet and faultmatrix (network faults), childproc
// (tests across processes), refreshbench (the background-refresh
// benchmark), replicademo (replicas sharing one budget), hungstore (a database that stopped answering), syncscript
// (a scripted month of transactions) and settlescript (a scripted month
// of a merchant's incoming payments, for package reconcile). Nothing a user imports depends on
// them; the examples use some of them to run against the emulator.
package testkit
