package site

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"

	"github.com/tppkit/psd2/sca"
)

type failedPage struct {
	Heading, What, Why string
	Code               string
	Status             string
	Retry, RetryText   string
}

// callback runs after sca.Manager's handler completed (or refused) the
// bank's redirect to TPP-Redirect-URI (docs/interface.md sections 5.9 and
// 6). The SCA's TPP-Session-ID finds what it was for: a consent, the PSU's
// identification, a payment or a basket.
//
// A completed SCA renews the browser's cookie (Site.renew): the value it
// held before, which someone may have planted, stands for nobody now.
func (s *Site) callback(w http.ResponseWriter, r *http.Request, sess *sca.Session, err error) {
	var key string
	if err == nil {
		key = s.renew(w, r)
	} else {
		key = s.user(w, r)
	}
	ctx := r.Context()
	var failed *sca.CallbackError
	switch {
	case err == nil:
		p := s.takePurpose(ctx, sess.TPPSessionID)
		switch p.Kind {
		case kindPayment:
			if rec, err := s.loadPayment(ctx, key, p.Ref); err == nil {
				rec.Approved, rec.Declined = true, ""
				if err := s.savePayment(ctx, key, rec); err != nil {
					s.fail(w, r, err)
					return
				}
				http.Redirect(w, r, "/payments/"+rec.Ref, http.StatusSeeOther)
				return
			}
		case kindBasket:
			if b, err := s.loadSigned(ctx, key, p.Ref); err == nil {
				b.Approved, b.Declined = true, ""
				for _, ref := range b.Refs {
					if rec, err := s.loadPayment(ctx, key, ref); err == nil {
						rec.Approved = true
						_ = s.savePayment(ctx, key, rec)
					}
				}
				if err := s.saveSigned(ctx, key, b); err != nil {
					s.fail(w, r, err)
					return
				}
				http.Redirect(w, r, "/baskets/"+b.Ref, http.StatusSeeOther)
				return
			}
		}
		http.Redirect(w, r, cmp.Or(p.Next, "/"), http.StatusSeeOther)

	case errors.As(err, &failed):
		// The bank's failed-SCA redirect: status, code, message. The
		// PSU's earlier session, if any, still holds.
		p := s.takePurpose(ctx, failed.TPPSessionID)
		// The bank's message is not shown: it is written for developers.
		page := failedPage{Heading: "Not approved at your bank", Code: failed.Code,
			Status: strconv.Itoa(failed.Status), Why: whyFailed(failed.Code)}
		switch p.Kind {
		case kindPayment:
			page.What = "Your payment was not made."
			if rec, err := s.loadPayment(ctx, key, p.Ref); err == nil {
				if rec.Approved {
					// Another SCA of the same payment (a second tab, the
					// Approve button) was approved: the bank has it, and
					// this failure changes nothing. Saying "not made"
					// would invite the PSU to pay again.
					s.message(w, r, http.StatusOK, messagePage{Heading: "Payment already approved",
						Text: "You already approved your payment of " + rec.Amount + " to " + rec.Creditor + " at your bank. Cancelling this other approval did not stop it.",
						More: "See the payment's status on the home page."})
					return
				}
				page.What = "Your payment of " + rec.Amount + " to " + rec.Creditor + " was not made."
				rec.Declined = cmp.Or(failed.Code, "declined")
				_ = s.savePayment(ctx, key, rec)
				page.Retry, page.RetryText = "/payments/"+rec.Ref, "See the payment"
			}
		case kindBasket:
			page.What = "The payments of your basket were not made."
			if b, err := s.loadSigned(ctx, key, p.Ref); err == nil {
				page.What = "The " + plural(len(b.Refs), "payment") + " of your basket were not made."
				b.Declined = cmp.Or(failed.Code, "declined")
				_ = s.saveSigned(ctx, key, b)
				for _, ref := range b.Refs {
					if rec, err := s.loadPayment(ctx, key, ref); err == nil {
						rec.Declined = b.Declined
						_ = s.savePayment(ctx, key, rec)
					}
				}
				page.Retry, page.RetryText = "/baskets/"+b.Ref, "See the payments"
			}
		case kindUser:
			page.What = "Your bank did not identify you, so you cannot pay yet."
			page.Retry, page.RetryText = "/identify", "Try again"
		default:
			page.What = "Your bank was not connected."
			page.Retry, page.RetryText = "/connect", "Try again"
		}
		s.render(w, r, http.StatusOK, "failed", frame{Title: page.Heading}, page)

	case errors.Is(err, sca.ErrWrongBrowser):
		// The SCA was started in another browser (or by another user): a
		// link someone sent the PSU. It is used up; no session is made for
		// anyone and the PSU's own session, if any, still holds.
		s.message(w, r, http.StatusForbidden, messagePage{Heading: "This approval was started in another browser", Problem: true,
			Text: "The link you approved at your bank was started in another browser or by another user, so it was not connected here. Nothing was changed.",
			More: "If you did not start it on this site yourself, someone may have sent you the link: do not approve bank links that others send you. To connect your bank, use Connect on the home page."})

	default:
		// Replayed, forged, expired or malformed: no session is made and
		// nothing changes.
		more := "If you came here with the Back button or a bookmark, your earlier approval still counts: see the home page."
		if errors.Is(err, sca.ErrStateMismatch) || errors.Is(err, sca.ErrMalformedCallback) || errors.Is(err, sca.ErrSessionMismatch) {
			more = "The link was changed or did not come from your bank."
		}
		s.message(w, r, http.StatusBadRequest, messagePage{Heading: "This link cannot be used", Problem: true,
			Text: "This return link from your bank was already used, has expired, or is not valid. Nothing was changed.",
			More: more})
	}
}

// whyFailed explains a failed SCA's code in a sentence.
func whyFailed(code string) string {
	switch code {
	case "SCA_INVALID":
		return "The approval was cancelled at your bank, or it did not succeed."
	case "PSU_CREDENTIALS_INVALID":
		return "Your bank did not recognise you."
	case "SCA_EXPIRED":
		return "The approval took too long."
	case "CORPORATE_ID_INVALID":
		return "The company agreement is not available to you."
	default:
		return "Your bank did not complete the approval."
	}
}
