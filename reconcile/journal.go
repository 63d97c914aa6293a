package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/txsync"
)

// ErrNotPayment matches the error of [PaymentOf] for a journal entry
// that stands for no payment whose money could arrive: not a single
// payment's create (a periodic or bulk payment, a signing basket), a
// create the bank refused or that was never sent, or one resolved by a
// resend (the resend's own entry is the payment).
var ErrNotPayment = errors.New("reconcile: journal entry is no payment that may exist")

// paymentsPath is the path of the single payments' creates, followed by
// the product (docs/interface.md section 10).
const paymentsPath = "/v1/payments/"

// productOf returns the product of a single payment's create URL.
func productOf(raw string) (payments.Product, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	i := strings.LastIndex(u.Path, paymentsPath)
	if i < 0 {
		return "", false
	}
	rest := u.Path[i+len(paymentsPath):]
	if rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	return payments.Product(rest), true
}

// createBody is what matching reads of a recorded payment create: the
// members of NDCT, SEPA and the other products' bodies
// (payments.NorwegianDomestic, payments.SEPA).
type createBody struct {
	EndToEndIdentification string       `json:"endToEndIdentification"`
	InstructedAmount       money.Amount `json:"instructedAmount"`
	CreditorAccount        struct {
		IBAN string `json:"iban"`
		BBAN string `json:"bban"`
	} `json:"creditorAccount"`
	RemittanceInformationUnstructured    string                         `json:"remittanceInformationUnstructured"`
	RemittanceInformationStructured      *payments.StructuredReference  `json:"remittanceInformationStructured"`
	RemittanceInformationStructuredArray []payments.StructuredReference `json:"remittanceInformationStructuredArray"`
	RequestedExecutionDate               date.Date                      `json:"requestedExecutionDate"`
}

// kidOf returns the KID of a create's structured references: the first
// of type KID (payments.ReferenceTypeKID, in any case), or of no type
// with a KID's form.
func (b *createBody) kidOf() string {
	refs := b.RemittanceInformationStructuredArray
	if b.RemittanceInformationStructured != nil {
		refs = append(refs, *b.RemittanceInformationStructured)
	}
	for _, r := range refs {
		ref := strings.TrimSpace(r.Reference)
		if strings.EqualFold(r.ReferenceType, payments.ReferenceTypeKID) || (r.ReferenceType == "" && isKID(ref)) {
			return ref
		}
	}
	return ""
}

// PaymentOf reads the payment a journal entry recorded (the create's
// body, URL, time and request id) and the status its resolution read,
// if any. It returns an error matching [ErrNotPayment] for an entry that
// stands for no payment that may exist (see there), and [ErrInvalid] for
// a body it cannot read. An entry in doubt is a payment that may exist:
// tracked, it settles when its credit comes (its window starts only with
// an accepted status).
func PaymentOf(e journal.Entry) (Payment, error) {
	product, ok := productOf(e.URL)
	if !ok {
		return Payment{}, fmt.Errorf("%w: not a single payment's create", ErrNotPayment)
	}
	if res := e.Resolution; res != nil {
		switch {
		case res.Kind == journal.ResolvedNotCreated:
			return Payment{}, fmt.Errorf("%w: not created", ErrNotPayment)
		case res.Kind == journal.ResolvedCreated && res.ResendRequestID != "":
			return Payment{}, fmt.Errorf("%w: created by its resend %s", ErrNotPayment, res.ResendRequestID)
		}
	} else if e.Outcome == journal.OutcomeRefused || e.Outcome == journal.OutcomeNotSent {
		return Payment{}, fmt.Errorf("%w: %s", ErrNotPayment, e.Outcome)
	}
	var b createBody
	if err := json.Unmarshal(e.Body, &b); err != nil {
		return Payment{}, fmt.Errorf("%w: the recorded body of %s is unreadable", ErrInvalid, e.RequestID)
	}
	p := Payment{RequestID: e.RequestID, Created: e.Created, Product: product, Amount: b.InstructedAmount,
		CreditorIBAN: b.CreditorAccount.IBAN, CreditorBBAN: b.CreditorAccount.BBAN, KID: b.kidOf(),
		EndToEndID: b.EndToEndIdentification, Remittance: b.RemittanceInformationUnstructured,
		ExecutionDate: b.RequestedExecutionDate}
	if res := e.Resolution; res != nil && res.Kind == journal.ResolvedStatus {
		p.Status, p.StatusAt = payments.TransactionStatus(res.Status), res.At
	}
	return p, nil
}

// Tracked counts what [Reconciler.TrackJournal] did.
type Tracked struct {
	// New payments tracked, Known ones tracked before, NotApplicable
	// ones whose creditor account is not watched (tried again at the
	// next call), Skipped entries that are no payment, older than
	// Retention, or unreadable.
	New, Known, NotApplicable, Skipped int
}

// TrackJournal tracks every payment of the journal that may exist
// ([PaymentOf]) and was not tracked before: call it at start-up and
// before each round of the watched accounts (it reads every entry, and
// one store key per payment). A store error ends it.
func (r *Reconciler) TrackJournal(ctx context.Context, j *journal.Journal) (Tracked, error) {
	var t Tracked
	if j == nil {
		return t, fmt.Errorf("%w: nil journal", ErrInvalid)
	}
	for e, err := range j.Entries(ctx) {
		if err != nil {
			return t, err
		}
		p, err := PaymentOf(e)
		if err != nil || r.now().Sub(p.Created) > Retention {
			t.Skipped++
			continue
		}
		if _, err := r.accountOf(ctx, p.RequestID); err == nil {
			t.Known++
			continue
		} else if !errors.Is(err, ErrNotTracked) {
			return t, err
		}
		st, err := r.Track(ctx, p)
		switch {
		case errors.Is(err, ErrInvalid):
			t.Skipped++
		case err != nil:
			return t, err
		case st.Settlement == NotApplicable:
			t.NotApplicable++
		default:
			t.New++
		}
	}
	return t, nil
}

// Payments yields the state of every tracked payment created (bank
// date) from from to to, both included (a zero bound is open), account
// by account, each in initiation order. It yields [ErrCorruptState] for
// a state it cannot read, and the store's errors: never nothing for a
// store it cannot read.
func (r *Reconciler) Payments(ctx context.Context, from, to date.Date) iter.Seq2[State, error] {
	return func(yield func(State, error) bool) {
		for k, err := range r.st.Keys(ctx, accountPrefix) {
			if err != nil {
				yield(State{}, r.storeErr(err))
				return
			}
			key := strings.TrimPrefix(k, accountPrefix)
			s, err := r.read(ctx, txsync.AccountKey(key))
			if err != nil {
				yield(State{}, fmt.Errorf("account %s: %w", key, err))
				return
			}
			if s == nil {
				continue // expired meanwhile
			}
			for i := range s.pays {
				st := s.pays[i].state(txsync.AccountKey(key))
				if inPeriod(st, from, to) && !yield(st, nil) {
					return
				}
			}
		}
	}
}

// Report yields [Reconciler.Payments] and then, from the journal j, the
// payments created in the period that were never tracked: [Untracked]
// when their creditor account is watched, else [NotApplicable]; a
// payment another process tracked while Report read is yielded with its
// state. It keeps the request ids of the period's tracked payments. A
// payment of the period whose recorded create cannot be read (its body
// garbled, its facts missing) ends the sequence with an error matching
// [ErrInvalid] that names it: never a report without it.
func (r *Reconciler) Report(ctx context.Context, j *journal.Journal, from, to date.Date) iter.Seq2[State, error] {
	return func(yield func(State, error) bool) {
		listed := map[string]bool{}
		for st, err := range r.Payments(ctx, from, to) {
			if !yield(st, err) || err != nil {
				return
			}
			listed[st.Payment] = true
		}
		if j == nil {
			return
		}
		for e, err := range j.Entries(ctx) {
			if err != nil {
				yield(State{}, err)
				return
			}
			if !inPeriod(State{Created: e.Created}, from, to) {
				continue
			}
			p, err := PaymentOf(e)
			if errors.Is(err, ErrNotPayment) {
				continue
			}
			sch := Scheme(0)
			if err == nil {
				sch, err = checkPayment(&p)
			}
			if err != nil {
				// A payment that may exist, left out, would read as
				// none.
				yield(State{}, fmt.Errorf("journal entry %s: %w", e.RequestID, err))
				return
			}
			st := State{Payment: p.RequestID, Scheme: sch, Created: p.Created.UTC(), Instructed: p.Amount, Settlement: NotApplicable}
			if listed[p.RequestID] {
				continue
			}
			// Tracked by another process since its account was read
			// above: its state now.
			switch tracked, err := r.Payment(ctx, p.RequestID); {
			case err == nil:
				if inPeriod(tracked, from, to) && !yield(tracked, nil) {
					return
				}
				continue
			case !errors.Is(err, ErrNotTracked):
				yield(State{}, err)
				return
			}
			key, err := r.watched(ctx, p.CreditorIBAN, p.CreditorBBAN)
			if err != nil {
				yield(State{}, err)
				return
			}
			if key != "" {
				st.Account, st.Settlement = key, Untracked
			}
			if !yield(st, nil) {
				return
			}
		}
	}
}

// inPeriod reports whether st was created (bank date) from from to to.
func inPeriod(st State, from, to date.Date) bool {
	d := bankDay(st.Created)
	return (from.IsZero() || d >= dayOf(from)) && (to.IsZero() || d <= dayOf(to))
}

// Watching reports whether the store holds the state of any watched
// account: a store that holds none was never given to a Reconciler's
// Watch, its accounts were forgotten ([Reconciler.Forget]), or it is not
// the TPP's store. The watches and the payments' index a forgotten
// account leaves do not count: they hold no payment's state. A store
// error is returned, never false.
func (r *Reconciler) Watching(ctx context.Context) (bool, error) {
	for _, err := range r.st.Keys(ctx, accountPrefix) {
		if err != nil {
			return false, r.storeErr(err)
		}
		return true, nil
	}
	return false, nil
}
