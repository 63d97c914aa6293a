// Package refreshbench is the harness of the background-refresh
// benchmarks: the SDK (package refresh over accounts, the client and its
// budget) and the bank sandbox in one process, against the RSA signing
// floor measured in the same run. It serves the benchmarks of package
// refresh (budget in memory and in a store.FileStore) and of the pgstore
// module (budget in PostgreSQL), so that every store is measured the same
// way, and the tests of package refresh, which share its seed data.
//
// It is imported only by _test.go files; no package of the SDK itself
// depends on it. Its figures are reported, never asserted.
//
//   - [Run]: one sub-benchmark, a background refresh of n seeded
//     accounts with the budget in a given store.
//   - [Seed], [SessionOf] and [Remembered]: the seed data of the
//     emulator's customers and the SDK sessions of the seeded customers.
//   - [Limits]: emulator caps that hold the largest benchmark.
//
// # Metrics
//
// One op is one round over every account (balances and one transactions
// page each: 2 signed calls per account), 6 hours after the previous one.
// A first round over empty budgets comes before, apart. [Run] reports:
//
//   - ratio: requests per second divided by the floor, the signatures
//     per second of bare rsa.SignPKCS1v15 with the TPP's 2048-bit key on
//     2 goroutines, measured in the same run. A measured round runs in
//     chunks of 500 accounts, each right after a floor sample of 0.25 s,
//     and ratio is the median of the chunks' ratios, so that another
//     process's load, which moves the floor and the chunk together,
//     moves the ratio little. calls/s and floor-sig/s are the round's
//     rate and the median floor sample;
//   - ratio-first-round: the ratio of the first round of the day (empty
//     budgets, one Run over every account, against the best of 5 floor
//     samples of 0.4 s before it);
//   - ratio-bare and ratio-of-bare: in the first measured round, each
//     chunk is sent again, against the same floor sample, by a bare
//     client: the SDK's own requests for one account (captured once),
//     with a fresh X-Request-ID, Date and Signature each, sent on as many
//     goroutines and read and dropped, with no budget, pipeline or
//     decoding. ratio-bare (median of the chunks) is the most any client
//     of the emulator reaches on these cores, the emulator's work and
//     HTTP/TLS included; ratio-of-bare (median of the chunks' SDK ratio
//     over their bare ratio) is the share of it the SDK keeps, its own
//     cost and its store's;
//   - ns/account, and sig/account: the time per account, in nanoseconds
//     and in floor signatures (median of the chunks; 2 is the floor),
//     comparable between sub-benchmarks run under different load;
//   - cpu-busy and cpu-us/call: over the measured rounds, the process's
//     CPU time (user and system) divided by the time and the cores, and
//     per call: below 1, the refresh waits (for a sync, a lock) rather
//     than works;
//   - sdk-B/account: the live heap the SDK holds per account after the
//     rounds (sessions, jobs, budget), the heap with the SDK's objects
//     less the heap without them, the sandbox's in both;
//   - mid-B/account and after-B/account: the live heap (after a GC) that
//     the first round added per account done, halfway and at the end: the
//     budgets of the SDK and of the sandbox. Equal figures at every N
//     mean that the run holds nothing per account (results are not
//     retained; one would add kilobytes);
//   - peak-heap-MiB: the peak heap during the first round, garbage
//     included (the GC lets it grow to about twice the live heap).
//
// A store whose state lives outside the process (PostgreSQL) adds to the
// heap figures only what its client side holds.
package refreshbench
