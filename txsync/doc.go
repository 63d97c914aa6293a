// Package txsync keeps an AISP's transaction lists true: read after read,
// it reports for each account the entries added, changed (with their
// previous version) and removed (with the reason), each under a stable
// key the SDK assigns, so that a TPP stores transactions by that key and
// never shows one twice, even when the bank does not keep its promises.
//
// # Why
//
// Booked transactions have stable ids since the platform's release 1.18.0
// (docs/interface.md section 2.9), and a reader that reports "booked
// entries after the last id seen" (package refresh's Cursor) is right as
// long as they are. Apps reading these banks have seen booked entries come
// back under another id, and imported them twice. Pending entries have no
// stable id at all: they change, vanish, come back booked under another
// id and sometimes another amount, and on the production platform every
// answer carries all of them whatever dateFrom, dateTo and limit say
// (the known issue of docs/interface.md section 8). A new consent lists
// the PSU's accounts under new resource ids. txsync follows an entry
// through all of that.
//
// # Matching
//
// Each read ([Syncer.Apply], or [Syncer.Sync], which also reads) is
// compared with what the sync kept of the account:
//
//  1. An entry with a transactionId the sync knows is that entry.
//  2. Otherwise an entry with the same fingerprint: booking and value
//     date, amount and currency, counterparty (name and account),
//     remittance information and proprietary references (entryReference,
//     endToEndId, additionalInformationProprietaryN, the transaction
//     codes), and status. Identical twins, two 49.00 NOK coffees on one
//     day, pair in order of occurrence ([Entry.Occurrence]), so they stay
//     two entries under two keys. A booked entry whose id and
//     references changed together still pairs by its other facts.
//  3. A pending entry the read no longer lists is paired with the new
//     entry most like it: same currency and direction, same counterparty
//     or text, booked from 3 days before to 14 days after the pending
//     entry's date, for an amount within 50 % of it (a tip, a currency
//     conversion). That pair is one [Change] ([Booked], perhaps
//     [Amount]) under the pending entry's key, not one entry added and
//     one removed. A card entry's original amount counts as one of its
//     amounts: a purchase pending in the merchant's currency and booked
//     in NOK, with the merchant's amount as its original amount, pairs
//     too. The comparisons of one read are bounded (20 million, a
//     million of them reaching the amounts' arithmetic; a real read
//     makes a few thousand): a read so large that a vanished pending
//     entry cannot be compared with every new entry within them (a
//     bank's 100,000 new entries against 2,000 vanished ones) leaves it
//     and the vanished entries after it unpaired, reported removed, and
//     their bookings added.
//
// What remains is [Delta.Added] (new keys) or [Delta.Removed]
// ([PendingVanished], [BookedGone]). A paired entry whose facts changed
// is in [Delta.Changed] with what the sync last saw ([Version]) and
// which facts changed ([What]); a paired entry whose id alone changed is
// not reported: nothing the PSU sees changed.
//
// # The overlap window and the budget
//
// Each read asks for booked entries from [DefaultOverlap] (5) days before
// the newest booking date seen ([WithOverlap]; [Syncer.From]), so that an
// entry a bank books late under an earlier business day is still found,
// and compares booked entries from that date on; older ones were reported
// by an earlier read. Five days of an account's entries, with the pending
// list, are one page of the bank (up to 499 entries), so a round is one
// transactions call of the without-PSU budget of 4 a day
// (docs/interface.md section 8). An entry booked more than the overlap
// late is missed. Pending entries are compared whatever their date; the
// read asks from the oldest pending entry's date when it is older, since a
// bank without the known issue filters them by date. A booked entry older
// than the window is then read too: it is offered to a tracked pending
// entry that left the pending list in the same read (a reservation booked
// under its own, older date), reported as that entry's change, and
// otherwise ignored: it is never added. A booked entry the window passed
// that a tracked pending entry could still be booked under (dated from 3
// days before the oldest pending entry's date on) is held in the state,
// in the places the window's entries leave, so that a read listing it
// again knows it as the entry reported before, not as the pending
// entry's booking.
//
// The newest booking date is bounded by the bank's date (Europe/Oslo, at
// the Syncer's clock, [WithClock]) plus [FutureDays] (1): a booked entry
// dated later is reported and tracked, with a [FutureBooked] anomaly in
// [Delta.Anomalies], but cannot move the window, so an entry dated a year
// ahead does not make every later read ask from a date nothing is booked
// under yet.
//
// # Which entries a read asked for
//
// An entry the read did not ask for is never reported removed: a booked
// entry is compared from the window's start (or the read's From, when
// later) on, a pending one from the read's From on, unless the bank lists
// every pending entry whatever the dates (the known issue). Accounts'
// entries are windowed by booking date, the date the bank's dateFrom
// filters booked entries by. Card accounts' entries are windowed by
// booking date too, but the interface does not say which date dateFrom
// filters a card account's list by: the Berlin Group says the booking date
// for booked entries and the entry (transaction) date for pending ones;
// the emulator filters by the transaction date. So [Syncer.From] asks
// from the earliest transaction date of the window's card entries as
// well, which lists them by either rule, and a card entry is removed only
// when both its dates are inside the read's dates.
//
// # The first read
//
// [WithFirstReadDays] sets how many days back the account's first read
// asks for (Plaid's days_requested; without it the bank's default): up to
// 89 days any read reaches, deeper only in the hour after the PSU's SCA
// (docs/interface.md sections 8 and 10). Every entry of the first read is
// added.
//
// # The limit
//
// The state keeps at most [WithMaxEntries] entries ([DefaultMaxEntries]),
// and no more of them than fit in seven eighths of the store's bound on
// a value (store.MaxValueLen, 1 MiB; the rest is left for the tracked
// entries' facts to grow): long texts (140 characters of four bytes each
// for the counterparty and the text) fill it before 2,000 entries. A
// tracked entry keeps its place while the bank lists it: dropped, it
// would come back under a new key. A new entry the state has no room for
// is not reported: [Delta.Overflow] counts it, on every read, until a
// place frees (a tracked entry leaves the bank's list or the window) and
// a read adds it, once. Past the limit an identical read reports nothing
// but its overflow, and no entry is ever reported twice. One read
// ([Syncer.Sync], [Syncer.SyncCard]) holds at most [MaxReadEntries]
// entries, and at most [MaxReadBytes] of them: pages past either (a bank
// whose next links never end) end it in [ErrReadTooLarge], nothing
// applied.
//
// # State
//
// Per account the sync keeps the newest booked date, a counter for keys
// and, per entry of the window and of the pending list, its key number,
// two 64-bit fingerprints, its id and the facts of its [Version] (for a
// card entry its transaction date and original amount too), in a
// compact binary form with a version byte and a CRC-64 checksum: about 60
// bytes an entry with short texts
// (measured by BenchmarkRound: 1.7 KB for an account with 4 entries a day
// and 3 pending; the texts add at most 140 characters each), bounded by
// [WithMaxEntries]. It lives in the SDK's store.Store under
// "txsync/state/<account key>", written with one atomic Update per read:
// replicas on one shared store (a file store on a shared disk, the
// PostgreSQL store) share it, and two replicas reading an account at
// once never report an entry under two keys. A state no read touches
// expires after [DefaultStateTTL] ([WithStateTTL]). A stored state that
// fails its checksum (a bit flipped, bytes lost or added by the store, or
// a value written by something else) is [ErrCorruptState], never read as
// another state; [Syncer.Forget] starts the account over. States written
// before the checksum (version 1) are still read, and written back with
// it by the next read. A state of a later form, its checksum sound, is
// [ErrNewerState]: a later release wrote it, so the replica is upgraded
// and the state not forgotten (a refresh ends Refused for it, as for a
// corrupt one).
//
// # Accounts across consents
//
// [Syncer.Link] records a consent's accounts (as listed right after the
// SCA) for the TPP's own id of the PSU: each gets an [AccountKey], the one
// it had under an earlier consent when its IBAN (else BBAN) is the same
// (and its currency, for the sub-accounts of one IBAN), for a card
// account its masked PAN and currency. The state and every
// entry key carry over to the new resource ids; accounts listed before
// and not now are reported ([Linked.Gone]). Reads do not write a Link's
// records: they are kept from the Link on for the longest a consent may
// last (366 days) and the state's TTL, so that they outlive the reads of
// the consent and a re-consent within the TTL finds the account's key.
// Store keys hold SHA-256
// digests of the PSU's id, account numbers and resource ids, never the
// values.
//
// # With refresh
//
// Package refresh reads the pages of an account without the PSU; a job
// that also applies what it read with [Syncer.ApplyResource] (every booked
// entry read, the pending list and its query's DateFrom, asked no later
// than [Syncer.ResourceFrom]) carries the three lists in its result.
package txsync
