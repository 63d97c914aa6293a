package emulator

import "time"

// Controls are the emulator's scenario and clock controls: what a test
// makes the bank do that a TPP cannot bring about over the interface.
// Get them with [Server.Control]; every bank of a [MultiBank] has its own
// ([MultiBank.Bank]). The bank's HTTP surface ([Server]) stays what the
// platform serves; Controls act on the bank behind it, in process, and
// `psd2 emulator -control` serves the same controls as JSON over HTTP for
// tests in any language ([Server.ControlHandler]).
//
// The controls, by topic (docs/emulator.md has a how-to for each):
//
//   - SCA: [Controls.Authorize], [Controls.AuthorizeCorporate],
//     [Controls.AuthorizeInContext] and [Controls.Reject] complete the
//     authorisation page as the PSU would.
//   - Consents and sessions: [Controls.RevokeConsent],
//     [Controls.Reconsent], [Controls.SetLastOnlineSCA] (the 180-day
//     rule), [Controls.Consents].
//   - Sandbox data: [Controls.Seed]; transaction scenarios
//     [Controls.AddTransaction], [Controls.AddTwins],
//     [Controls.ChangeTransactionID] (id churn), [Controls.BookPending]
//     (pending to booked), [Controls.DropPending],
//     [Controls.SetUnfilteredPending].
//   - TPPs and permissions: [Controls.SetRoles],
//     [Controls.GrantAgreement], [Controls.RemovePaymentPermission],
//     [Controls.RestorePaymentPermission].
//   - Payments: [Controls.RunBatch], [Controls.Payments].
//   - Faults: [Controls.InjectFault] (the next requests), and outages
//     over a time span on the bank's clock: [Controls.Outage],
//     [Controls.SlowBank], [Controls.Flapping], [Controls.RateLimitStorm],
//     [Controls.EndOutages].
//   - The bank's clock: [Controls.Now], [Controls.SetTime],
//     [Controls.Advance], [Controls.Freeze], [Controls.Resume].
//
// All methods are safe for concurrent use, also while the bank serves
// requests.
type Controls struct{ s *Server }

// Control returns the server's scenario and clock controls (the same
// value on every call).
func (s *Server) Control() *Controls { return &s.ctl }

// Now returns the bank's time: the server's clock ([WithClock], else
// time.Now) as the clock controls moved it.
func (c *Controls) Now() time.Time { return c.s.now() }

// SetTime sets the bank's clock to t; it runs on from t unless frozen
// ([Controls.Freeze]), in which case it stays at t. It may go back. The
// bank's clock stays within 100 years of the server's: a t beyond that
// sets it to the 100th year.
//
// The bank's clock is what the bank keeps and decides: SCA and consent
// validity, the access budget's 24 hours, the 180-day rule, the bank date
// of payments and bookings, the batch schedule, and the spans of outages.
// The wire keeps the server's own clock: the Date header of answers, the
// 60-second window of a request's Date and the validity of certificates,
// so clients go on signing with their real time (as a real bank's clock
// cannot be moved by a TPP). With [WithClock] both start from the clock
// given; without clock controls they read the same.
func (c *Controls) SetTime(t time.Time) { c.s.clock.set(t); c.s.syncDoor() }

// Advance moves the bank's clock by d (negative: back), frozen or not:
// Advance(89*24*time.Hour) takes a consent given now to its 89th day. A
// batch slot passed on the way runs at the next request, once. The bank's
// clock stops 100 years from the server's, as with [Controls.SetTime].
func (c *Controls) Advance(d time.Duration) { c.s.clock.advance(d); c.s.syncDoor() }

// Freeze stops the bank's clock at its current reading until
// [Controls.Resume]; [Controls.Advance] and [Controls.SetTime] still move
// it. Dated answers (booking dates, execution dates) then stay the same
// from one run to the next.
func (c *Controls) Freeze() { c.s.clock.freeze() }

// Resume lets the bank's clock run again from where [Controls.Freeze]
// stopped it.
func (c *Controls) Resume() { c.s.clock.resume(); c.s.syncDoor() }
