// Package reconcile tells a TPP that a payment's money arrived: it
// matches the payments the TPP initiated to the credits booked on the
// accounts it watches, and reports each payment settled (with the
// booking's key, date and amount), settled with another amount (a fee
// deducted, a partial payment, another currency: both amounts), returned
// (a later reversal booked), stalled (not booked within its scheme's
// window after an accepted status), or withdrawn (the bank took back the
// credit that settled it), and each credit nothing matched
// (docs/reconcile.md).
//
// It works where the TPP may read the creditor's account: a TPP that
// collects into its own account, or acts for a business that consented
// to account information. A payment to any other account is
// [NotApplicable].
//
// The calls, in the order a service makes them (examples/reconcile runs
// them against the emulator):
//
//	reconcile.New(st, reconcile.WithClock(c.Now), reconcile.WithEmitter(em))
//	r.Watch(ctx, linked.Accounts[0].Key, merchantAccount) // after each txsync Link
//	r.Track(ctx, payment)                                 // after each create
//	r.Status(ctx, requestID, status)                      // as payments.Service.Wait sees it
//	r.Apply(ctx, delta)                                   // after each read of the account
//
// # Inputs
//
//   - The payments: [Reconciler.Track] takes a [Payment], which
//     [PaymentOf] reads from the payments journal's entry of its create
//     (journal.Journal.Entry with the create's X-Request-ID), or
//     [Reconciler.TrackJournal] tracks every payment of the journal that
//     may exist (created, or in doubt) at once. A payment is kept on the
//     watched account its creditor account (IBAN, else BBAN, in any
//     notation) names; tracking is idempotent. Track a payment before
//     its credit can be read: a credit read before its payment was
//     tracked is reported unmatched, and stays so.
//   - The payment status reads: [Reconciler.Status] (or Payment.Status
//     at Track, a journal resolution's status with PaymentOf). The first
//     accepted status starts the payment's window; ACCP does not (on this
//     platform it also means waiting for funds); RJCT and CANC end the
//     wait ([NotExecuted]), and withdraw a settlement made before (the
//     credit was not the payment's money): the first waiting twin (the
//     same KID, or the same remittance text and amount, its dates
//     admitting the credit) is settled by it at once. The credit's own
//     texts are not kept, so another payment it would match waits for
//     the bank's next change of it; a credit no twin takes matches no
//     payment, and the next Apply reports it unmatched (Status returns
//     no Round; see Credits booked in the future). A payment never seen
//     accepted never stalls.
//   - The txsync deltas of the watched accounts: [Reconciler.Apply] (or
//     [Reconciler.Observe]) with every delta of an account, an empty one
//     included: the credits added, and those changed from pending to
//     booked, are matched; a pending credit waits until it is booked,
//     and one txsync flags booked in the future until its date (see
//     Credits booked in the future below). Its removed and changed
//     entries withdraw the settlements they made (see Withdrawn credits
//     below).
//     [Reconciler.Watch] declares an account watched, under the key
//     txsync's Link gave it: a re-consent keeps the key, and every state.
//
// # Matching
//
// Each credit of a delta is matched, strongest evidence first across all
// of the delta's credits:
//
//  1. the payment's KID and amount ([ByKID]);
//  2. its end-to-end id, where the bank echoes it ([ByEndToEndID]);
//  3. its remittance text and amount ([ByRemittance]), within the
//     expected dates: up to [TextLateDays] banking days after the window;
//  4. its KID, for another amount (a fee, a partial payment, another
//     currency);
//  5. its remittance text, for the amount less at most [FeeShare] percent
//     (a fee), in the same currency.
//
// No credit is taken for a payment before the payment's creation date
// (before its requested execution date when later: the last banking day
// on or before it, where a bank executes a weekend's or holiday's
// payment early), or more than [LateDays] banking days after its window
// (by KID or end-to-end id). Currency conversion is never guessed: a
// match by amount needs the same currency, and a match by reference
// across currencies reports both amounts. Twins (two 49.00 NOK payments on one day with
// the same text) are matched one to one, each credit to the first payment
// by initiation order ([Payment.Created]) that it fits. A credit that
// matches nothing is reported in [Round.Unmatched], never forced onto a
// payment. A booked entry that cannot be read (an amount unreadable,
// absent or zero, or no booking nor value date) matches nothing and is
// reported in [Round.Unreadable], credit or debit alike (an unreadable
// amount has no sign), once, with what is known: its key, its date if
// any, its amount as the bank sent it. It may be a payment's credit
// (the payment waits, and stalls after its window) or a reversal; the
// TPP looks it up in its ledger. So is a credit or a reversal the bank
// changes so that it can no longer be read, its settlement withdrawn or
// its hold let go, and a credit reported unmatched (or unreadable) before
// that the bank changes so, once: what was reported of it is no longer
// what the bank shows. One reported unreadable that the bank changes into
// a debit that can be read is matched as a debit read for the first time,
// once: a reversal returns its payment (held while booked in the future),
// or lets the held credit it reverses go, reported with it in
// [Round.UnmatchedReversals].
//
// Each payment and each booking is matched at most once. A booking seen
// before is skipped ([Round.Repeated]): under its key (the same delta
// again, a re-consent), and, in the first read of an account
// (txsync.Delta.First: the sync's state started over, every entry under
// a new key), by its facts (as the bank last changed them): dates,
// amount, counterparty, texts, references, and its occurrence among
// identical entries. A booking a
// delta lists twice is taken once.
//
// # Withdrawn credits
//
// A booked credit is evidence only while the bank books it. When the
// credit that settled a payment leaves the bank's list (a removal of
// txsync.BookedGone in Delta.Removed), comes back as pending (a change
// of txsync.Unbooked), or changes (amount, dates or texts: a change of
// txsync.Amount, Dates or Text) so that it no longer settles the payment
// with the same evidence, amount and date, the payment is [Withdrawn]:
// not known to have arrived, waiting for a credit again as an Awaiting
// payment does (it stalls after its window, once, as any payment), with
// the withdrawn credit's key, date and amount and the count of its
// withdrawals in its [State]. The call reports it in [Round.Withdrawn]
// and emits events.PaymentSettlementWithdrawn, once per withdrawal. A
// later credit settles it again (a changed credit is matched again at
// once, as it is now; so is a changed credit that settled nothing, not
// reported unmatched again, but for one reported unreadable before: a
// credit of no payment now, it is reported unmatched, once): Settled, with another events.PaymentSettled whose
// Withdrawals counts the withdrawals before it (and so has an ID of its
// own). A credit the bank no longer lists stays seen: a delta given again
// after the removal's does not bring it back; txsync gives it a new key
// if the bank lists it again. One listed as pending again is matched
// anew when it is booked, under its key. After a first read (the sync's
// state started over), a credit seen before is known under its new key,
// and withdrawn under it. A withdrawn reversal does not undo a return
// (see When it cannot tell).
//
// # Credits booked in the future
//
// txsync flags a booked entry dated more than txsync.FutureDays (1) after
// the bank's date with a txsync.FutureBooked anomaly (Delta.Anomalies),
// once, in the delta that adds or changes it: a bank's clock or data
// error. Such a credit is not taken as the money having arrived while its
// date is ahead. It is matched as any credit, and one that matches a
// payment is held for it: the payment still waits (Awaiting, or Stalled
// after its window, as for a late credit), the credit in
// [State.HeldBooking] and the call's [Round.Held], no event. The first
// read of the account from the day before its date on (its date no more
// than FutureDays ahead: the day txsync would no longer flag it) settles
// the payment with it, as any credit, late if dated after the window,
// before that read's debits are matched (a reversal of it in the same
// read returns the payment); the reconciler keeps it, as txsync reports
// it once. A held credit the bank
// withdraws (no longer listed, or pending again) is let go without a
// withdrawal (it settled nothing); one it changes (a corrected date) is
// matched again as it now is, held again only if flagged again and still
// ahead; one it reverses while it is held (a debit of its amount, with
// the payment's reference, booked on or after it) is let go, reported in
// that call's [Round.Unmatched] (the reversal in
// [Round.UnmatchedReversals]), and settles nothing (the payment waits).
// A flagged credit applied when its date is no longer ahead
// settles at once; one that matches nothing is reported unmatched. A
// credit not flagged that matches a payment holding a credit settles it
// at once, as if nothing were held (it proves the money arrived): the
// held credit is let go, without a withdrawal, and is as any credit that
// matches no waiting payment: held for the payment's first waiting twin,
// else reported in that call's [Round.Unmatched], once. A credit freed by
// its payment's rejection takes a twin holding a credit the same way;
// [Reconciler.Status] returns no Round, so a credit it lets go (held for
// the rejected payment or for the twin, or freed by the rejection) that
// no other twin takes is kept (key, date and amount) for the next
// [Reconciler.Apply] to report in its Round.Unmatched, first, once (not
// when that Apply's delta withdraws it, or changes it so that it settles
// or is held for a payment, or so that it can no longer be read: then in
// its Round.Unreadable, as it now is).
// A reversal of a settled payment that txsync flags is held the same way
// while its date is ahead: the payment stays settled, the reversal in
// [State.HeldReversal] and [Round.Held], no event, and the first read
// from the day before its date on returns it. A return is final and
// tells the merchant the money went back (who may ship nothing, or ask
// the payer again): a dubious debit is not taken as one. A held reversal
// the bank withdraws is let go, one it changes is matched again, one
// not flagged returns the payment at once (the held one let go; of
// twins, one holding no reversal first), and a
// withdrawn settlement takes its held reversal with it (back, when the
// credit, changed, settles a payment again in that call and the reversal
// still reverses it: the same amount, dated on or after it; the credit
// held again instead, flagged again, is let go as a held credit reversed,
// reported unmatched with the reversal; a reversal the bank changes in
// the same delta is matched again as it now is, as any held reversal
// changed); a credit freed by its payment's rejection takes its held reversal to the twin it
// settles (held, or returning it once due). A held reversal let go with a
// credit that settles no payment (the credit withdrawn, changed to
// another amount or matching nothing, or freed with no twin to take it)
// is never dropped: it is reported in [Round.UnmatchedReversals] (by the
// next Apply, first, when Status let it go), once, so that the TPP does
// not take the credit for money it holds. A held reversal the bank
// changes so that it reverses no payment (another amount, a date out of
// [ReturnDays], a text without the payment's reference) is let go, the
// payment left settled, and reported in that call's
// [Round.UnmatchedReversals] as it now is, once: it was reported held,
// and returns nothing. The rule is in one place
// (holds, takes, displace, returnOf, reversedHold and rehold, in
// match.go).
//
// # What the bank echoes
//
// The interface does not say how a credit carries the payment's
// references, and the platform's recorded answers show only the
// unstructured text. A KID is looked for in the structured remittance
// members (a string or an object, alone or in an array), in an
// additionalInformationProprietaryN that is the KID, and in the text:
// alone, or as a word of at least 5 digits standing apart (as a run of
// groups, below): "ordre 2026/12345678903", "INV-12345678903" or
// "12345678903,00" carry no KID, "KID:12345678903" does, and so does
// "KID12345678903" (the word KID, standing apart, glued to the run). Each of them may write it in
// groups of digits, as a bank prints it for the eye ("1234 5678 903" for
// 12345678903, "12 345 678 903"): its digits are the KID when the groups
// are separated by single spaces (ASCII, no-break, figure, thin or narrow
// no-break), nothing else, all of one length of 2 to 5 digits but the
// last or the first (no longer), the run in a text whole and standing
// apart (touching on each side the text's end, white space, or a mark
// that ends a word in prose, such as '.', ',', ':', a quote or a bracket,
// with no digit beyond; never a letter, a digit, '-', '/', '_' or another
// symbol: "16:12 345 678 903" is a time and a number, "2026/1234 5678
// 903" an order number), and the digits end in a valid MOD-10 or MOD-11
// check digit; a run glued to a token reads as no KID, nor do its groups.
// So "faktura 1234 5678903" or
// "faktura 1234 kid 5678903" never read as 12345678903, and a KID so
// found settles a payment only when its digits are the payment's exactly
// (none more, none less): its groups are not words of their own ("12345
// 67890 3" is 12345678903, never 12345 nor 67890). The end-to-end id is the entry's endToEndId. Texts are compared as words of ASCII letters and
// digits, since the bank may truncate or re-encode them
// (docs/interface.md section 2.4): the payment's words among the credit's
// (a bank that adds a word), or the credit's a cut of the payment's, at
// least 25 characters long. The choice is in one place (evidence.go; a
// KID in kidOf).
//
// # Windows
//
// Each [Scheme] has a booking window in Norwegian banking days (package
// date's calendar: weekends, public holidays, Christmas Eve and New
// Year's Eve are not): [WindowDomestic] (NICS), [WindowInstant] (the
// instant product and transfers between the PSU's own accounts),
// [WindowSEPA] and [WindowCrossBorder]. It starts on the first banking day
// on or after the payment's accepted status, or its requested execution
// date when later, and ends [WindowDomestic] (and so on) banking days
// after ([Scheme.Deadline]). An accepted payment not credited by then is
// [Stalled] at the first read of the account after that day; a credit
// that comes later still settles it, marked late.
//
// # Events
//
// With [WithEmitter], the outcomes are events of package events:
// events.PaymentSettled, events.PaymentSettlementStalled and
// events.PaymentReturned, each once per payment, and
// events.PaymentSettlementWithdrawn, once per withdrawal (with the
// settlement that follows it), in the order of the facts. An event whose
// fact no longer holds when it is emitted (a settlement withdrawn before
// its event went out) is not emitted. An outcome is recorded in the account's state with its
// announcement, in the same write; the call that decided it emits the
// events and then clears the announcement. A call that finds an
// announcement another call left (it crashed, or the Emitter's sink
// failed) emits it once announceLease (2 minutes) has passed; the
// events' stable IDs make the Emitter with a shared store and pgstore's
// outbox deliver it once. The events carry the TPP's reference of the
// payment, the SDK's key of the booking, amounts and dates: no KID, text,
// account number or name.
//
// # State
//
// Each watched account's state is one value in the SDK's store.Store,
// under "reconcile/account/<account key>", changed by one atomic
// store.Update per call: replicas on one store (a FileStore on one
// machine, pgstore) share it, and two reconcilers applying the same
// deltas at once match each payment and booking once. A tracked
// payment's account is found under "reconcile/payment/<digest>", a
// watched account by its numbers under "reconcile/watch/<digest>":
// digests (SHA-256) of the request id and the account numbers, never the
// values; the state keeps the payments' KIDs and texts in clear, as the
// journal keeps their bodies. An open KID payment takes about 75 bytes
// (its UUID request id half of them; BenchmarkRound), a settled one
// about 105 with its booking's key, and each booking seen 20 (TestMonth:
// about 125 bytes a payment for a month of a merchant's account). A
// payment stays [Retention] (120 days) after its creation, longer than
// the journal keeps it, so that TrackJournal never tracks it twice; one
// holding a credit or a reversal booked in the future stays until a read
// settles or returns it with the held item (an account not read for
// Retention included: Status and Track never drop it); one settled or
// returned stays as long as its credit is kept seen, Retention after the
// credit's date, so that the bank's change of the credit meanwhile
// withdraws the settlement (reported), never matches the credit again as
// one that settled nothing. The key that finds a payment's account lives
// as long as the state keeps the payment: Status and Payment find every
// payment a Round or an event may name.
// The state has a header (the next day a read can change anything, and
// the announcements), read alone by the usual round that brings no
// booking, and a body; each has a CRC-64, and a state that fails one is
// [ErrCorruptState] ([Reconciler.Forget] starts the account over). A
// state is written in the form of the earlier release (version 1) until
// a credit of its account is withdrawn, or a credit or reversal held
// (booked in the future), and both forms are read: a replica of the
// earlier release reads the state until then, and refuses it after
// ([ErrCorruptState], not another state; a replica that knows
// withdrawals but not held credits refuses a state holding one, never
// reads it as settled, and one that knows held credits but not held
// reversals refuses a state holding a reversal). A state that keeps a
// credit for the next Apply to report unmatched (see Credits booked in
// the future) is written in version 3 until it is reported, and refused
// meanwhile by a replica that reads version 2 ([ErrNewerState]); one
// that keeps a reversal so (see Round.UnmatchedReversals), in version 4,
// refused by a replica that reads version 3. From this release on,
// every change of the form takes a new version byte, and a state of a
// later form than a replica reads, its envelope sound, is
// [ErrNewerState], not ErrCorruptState: the replica is upgraded, and the
// state is never forgotten for it. An
// account holds up to about 8,000 payments within the retention (the
// state's bound is 900 KiB, below the store's 1 MiB). A state at its
// bound lets go, to make room, the oldest payments not executed that
// hold no credit, then the oldest bookings seen that no payment holds (a
// delta given again with such a credit matches it anew, reported as any:
// settled or unmatched), and last the oldest closed payments holding a
// credit, each with that credit's booking, so that a later change of the
// credit is read as a credit read for the first time and reported,
// never matched again quietly; never a waiting payment or one with an
// event still to emit. A call whose change does not fit then fails with
// [ErrFull], storing nothing (Track, Apply and Status alike).
//
// # Where it runs
//
// A TPP that reads its accounts with txsync (Syncer.Sync, Apply) calls
// [Reconciler.Apply] after each read. Package refresh and the River
// engine of module pgstore take [Reconciler.Observe] as a delta hook,
// one option that calls it with every job's delta (Result.Sync):
// refresh.WithDeltaHook(r.Observe), among a bank's refresh options for
// the River engine.
// Because txsync reports a booking once, a delta whose Apply failed must
// be given again: Apply is idempotent. The command psd2 reconcile lists a
// period's payments with their settlement ([Reconciler.Report]).
//
// # When it cannot tell
//
//   - The creditor account is not one the TPP may read: [NotApplicable].
//   - The bank books many KID payments as one credit (an OCR batch): the
//     batch matches nothing and is reported unmatched; its payments
//     stall.
//   - A credit carries none of the payment's references and another
//     amount, or another currency without a reference: unmatched.
//   - A payment returned before it was credited shows as stalled: the
//     return is booked on the debtor's account, which is not watched.
//   - A credit booked more than [LateDays] banking days after the window,
//     or read before its payment was tracked: unmatched.
//   - A delta lost between txsync's write and Apply (a crash in between)
//     is not read again; its credits' payments stall, and a withdrawal in
//     it is not seen: the payment stays settled.
//   - A credit withdrawn more than [ReturnDays] after its booking: the
//     payment is [Withdrawn], but its references were let go, and no
//     later credit settles it.
//   - A reversal the bank withdraws: the payment stays [Returned].
//   - A booked entry whose amount or date cannot be read (or whose
//     amount is zero): reported in [Round.Unreadable], matched with no
//     payment.
package reconcile
