package site

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
)

// statusText is a payment's state in a few words.
func statusText(rec *paymentRecord) string {
	switch st := rec.Status; {
	case rec.Declined != "":
		return "Not approved"
	case !rec.Approved && rec.BasketRef == "draft":
		return "In your basket"
	case !rec.Approved:
		return "Waiting for your approval"
	case st.IsExecuted():
		return "Paid"
	case st.IsRejected():
		return "Rejected by the bank"
	case st.IsCancelled():
		return "Cancelled"
	case rec.FundsMissing:
		return "Waiting for money on the account"
	case st == payments.StatusPDNG:
		return "Scheduled"
	default:
		return "Approved, on its way"
	}
}

type paymentPage struct {
	*paymentRecord
	Heading, Explanation string
	Problem              bool
	Waiting              bool
	CanApprove           bool
	Token                string
}

// follow reads the status of an approved payment that is not final yet
// with payments.Service.Wait, within ctx, and stores what it read. It
// reports false when the bank answered with an error other than "not
// final yet".
func (s *Site) follow(ctx context.Context, r *http.Request, key string, rec *paymentRecord, opts client.RequestOption) bool {
	if !rec.Approved || rec.Status.IsFinal() {
		return true
	}
	st, err := s.pis.Wait(ctx, rec.payment(), opts)
	if st != nil {
		rec.Status, rec.FundsMissing = st.TransactionStatus, st.FundsUnavailable()
		if err := s.savePayment(r.Context(), key, rec); err != nil {
			s.log.Warn("webapp: keeping a payment's status", "err", err)
		}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		s.log.Warn("webapp: payment status", "err", err)
		return false
	}
	return true
}

// statusOptions are the request options of status reads: the PSU's
// session, the PSU present.
func (s *Site) statusOptions(r *http.Request, key string) (client.RequestOption, error) {
	sess, err := s.session(r, key)
	if err != nil {
		return nil, err
	}
	if sess == nil {
		return nil, store.ErrNotStored
	}
	return sess.RequestOptions(present(r)), nil
}

// payment shows a payment and follows it to its final status: it waits
// for the bank (payments.Service.Wait) up to the site's WaitTimeout, and
// while the status is not final the page reloads itself
// (<meta http-equiv=refresh>), so the PSU never reloads by hand.
func (s *Site) payment(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	rec, err := s.loadPayment(r.Context(), key, r.PathValue("ref"))
	if err != nil {
		s.notFound(w, r)
		return
	}
	reachable := true
	if rec.Approved && !rec.Status.IsFinal() {
		opts, err := s.statusOptions(r, key)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.wait)
		reachable = s.follow(ctx, r, key, rec, opts)
		cancel()
	}
	p := paymentPage{paymentRecord: rec}
	st := rec.Status
	switch {
	case rec.Declined != "":
		p.Heading, p.Problem = "Payment not approved", true
		p.Explanation = "You did not approve this payment at your bank, so nothing was paid."
		p.CanApprove = rec.BasketRef == ""
	case !rec.Approved && rec.BasketRef == "draft":
		p.Heading = "In your basket"
		p.Explanation = "This payment waits in your basket for your approval."
	case !rec.Approved:
		p.Heading = "Waiting for your approval"
		p.Explanation = "Approve this payment at your bank; nothing is paid before that."
		p.CanApprove = rec.BasketRef == ""
	case st.IsExecuted():
		p.Heading = "Payment done"
		p.Explanation = "Your bank has paid " + rec.Amount + " to " + rec.Creditor + "."
	case st.IsRejected():
		p.Heading, p.Problem = "Payment rejected", true
		p.Explanation = "Your bank rejected the payment; nothing was paid."
	case st.IsCancelled():
		p.Heading, p.Problem = "Payment cancelled", true
		p.Explanation = "The payment was cancelled; nothing was paid."
	default:
		p.Heading, p.Waiting = "Payment approved", true
		p.Explanation = "You approved the payment. Your bank is processing it."
		if rec.FundsMissing {
			p.Explanation = "You approved the payment, but there is not enough money on the account yet. Your bank tries again at its next run."
		}
		if !reachable {
			p.Explanation += " We could not reach your bank just now; we will ask again."
		}
	}
	if p.CanApprove {
		if p.Token, err = s.newToken(r.Context(), key, "approve"); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	f := frame{Title: p.Heading}
	if p.Waiting {
		f.Refresh = s.refresh
	}
	s.render(w, r, http.StatusOK, "payment", f, p)
}

type basketStatusPage struct {
	Heading, Explanation string
	Problem, Waiting     bool
	Payments             []paymentRow
}

// signedBasket shows the payments of a signing basket and follows them to
// their final statuses, as payment does for one. A basket is not atomic:
// each payment has its own status.
func (s *Site) signedBasket(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	b, err := s.loadSigned(r.Context(), key, r.PathValue("ref"))
	if err != nil {
		s.notFound(w, r)
		return
	}
	var opts client.RequestOption
	if b.Approved {
		if opts, err = s.statusOptions(r, key); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.wait)
	defer cancel()
	p := basketStatusPage{}
	done, paid := 0, 0
	for _, ref := range b.Refs {
		rec, err := s.loadPayment(r.Context(), key, ref)
		if err != nil {
			continue
		}
		if b.Approved {
			s.follow(ctx, r, key, rec, opts)
		}
		if rec.Status.IsFinal() {
			done++
		}
		if rec.Status.IsExecuted() {
			paid++
		}
		p.Payments = append(p.Payments, paymentRow{Ref: rec.Ref, Creditor: rec.Creditor, Amount: rec.Amount, StatusText: statusText(rec)})
	}
	switch n := len(p.Payments); {
	case b.Declined != "":
		p.Heading, p.Problem = "Payments not approved", true
		p.Explanation = "You did not approve the basket at your bank, so nothing was paid."
	case !b.Approved:
		p.Heading = "Waiting for your approval"
		p.Explanation = "Approve the basket at your bank; nothing is paid before that."
	case done < n:
		p.Heading, p.Waiting = "Payments approved", true
		p.Explanation = "You approved " + plural(n, "payment") + " with one approval. Your bank processes each on its own."
	case paid == n:
		p.Heading = "All payments done"
		p.Explanation = "Your bank has paid all " + plural(n, "payment") + "."
	default:
		p.Heading, p.Problem = "Some payments were not made", true
		p.Explanation = "Your bank finished the basket: " + plural(paid, "payment") + " paid out of " + itoa(n) + "."
	}
	f := frame{Title: p.Heading}
	if p.Waiting {
		f.Refresh = s.refresh
	}
	s.render(w, r, http.StatusOK, "basketstatus", f, p)
}

// plural writes "1 payment", "3 payments".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}

func itoa(n int) string { return strconv.Itoa(n) }
