// Package store is the SDK's one interface for state that must outlive a
// call: PSU sessions and pending SCAs (package sca), the without-PSU call
// budget (kept by the client, client.WithStore) and the create journal
// (package journal).
//
// # The interface
//
// [Store] is small on purpose: Get, Put with an optional
// time to live, Delete, an atomic Take (a pending SCA is completed by one
// callback only), an atomic read-modify-write Update (two replicas never
// both take the last budget call), and Keys by prefix in byte order. Keys
// are checked by [CheckKey] and values by [CheckValue]; errors match
// [ErrNotStored], [ErrInvalidKey] and [ErrValueTooLarge].
//
// # Implementations
//
// [MemoryStore] keeps state in one process. [FileStore]
// keeps one file per key in a private directory, shared by the processes
// of one machine through flock(2) locks, with atomic, fsynced writes; it
// refuses unsafe directories ([ErrUnsafeStore]) and removes expired
// values when it meets them and in a sweep ([FileStore.Sweep]);
// [OpenFileStore] opens an existing one for a tool that reads a
// service's state, and never creates one at a mistyped path. The
// PostgreSQL store of module github.com/tppkit/psd2/pgstore is the one
// for several replicas on several machines. A user's own (Redis,
// DynamoDB, ...) fits behind the same six methods.
//
// # Conformance
//
// Package store/storetest checks any implementation against
// the contract with one call, storetest.Run, including races between two
// independent clients of one backing store; every store of the SDK runs
// it.
package store
