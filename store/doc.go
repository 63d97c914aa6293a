// Package store is the SDK's one interface for state that must outlive a
// call: PSU sessions and pending SCAs (package sca), the without-PSU call
// budget (package accounts) and the payment journal (package payments).
//
// [Store] is small on purpose: Get, Put with an optional time to live,
// Delete, an atomic Take, an atomic read-modify-write Update, and Keys by
// prefix. [MemoryStore] keeps state in one process; a store shared by
// several replicas of a TPP's service (the file store on a shared disk,
// the PostgreSQL store of module github.com/tppkit/psd2/pgstore, or a
// user's own) makes sessions, budgets and the journal shared too.
// Package storetest checks an implementation against the contract.
package store
