package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
)

// WithJournal makes the Service record every create (single, periodic,
// bulk; every product) in j before it is sent, and its outcome after:
// see [journal.Journal]. A store error then stops a create before
// anything is sent. WithJournal(nil) is refused.
func WithJournal(j *journal.Journal) Option {
	return func(s *Service) error {
		if j == nil {
			return fmt.Errorf("%w: WithJournal(nil)", journal.ErrJournal)
		}
		s.journal = j
		return nil
	}
}

// Journal returns the Service's journal ([WithJournal]), nil when it has
// none.
func (s *Service) Journal() *journal.Journal { return s.journal }

// createOf describes a payment create of product under ps to the
// journal: the bank names the payment "paymentId" and refuses an
// identical create while the first stands as a logical duplicate (400
// PAYMENT_FAILED on this platform: docs/interface.md section 7 names no
// code for it, and PAYMENT_FAILED is the only create-time refusal with
// that code; [ErrLogicalDuplicate]); an NDCT's status reads 404 until
// the PSU approved it ([ErrNotYetReadable]).
func createOf(ps PaymentService, product Product) journal.Create {
	return journal.Create{ResultID: "paymentId", DuplicateStatus: http.StatusBadRequest,
		DuplicateCode: client.CodePaymentFailed, NotFoundUntilApproved: unreadableBeforeApproval(ps, product)}
}

// Resolution is what [Service.Resolve] found out about a payment's
// journal entry: the journal's resolution, and for
// [journal.ResolvedCreated] the bank's answer to the resend.
type Resolution struct {
	journal.Resolution
	// Initiation is the bank's answer to the resend for
	// journal.ResolvedCreated (links, scaRedirect: the PSU approves the
	// payment created now), nil otherwise. It is not recorded.
	Initiation *Initiation `json:"-"`
}

// Resolve settles a payment's journal entry in doubt with
// [journal.Journal.Resolve] of the journal it was read from, through the
// Service's client (which must be of the TPP and bank the entry was
// journaled with; the Service needs no journal of its own) and, when the resend
// created the payment, decodes the bank's answer into Initiation. It
// never creates a second payment; see journal.Journal.Resolve for every
// case, and docs/design.md section 8 for what to do after
// [journal.ResolvedDuplicate].
func (s *Service) Resolve(ctx context.Context, entry journal.Entry, opts ...client.RequestOption) (Resolution, error) {
	if s == nil || s.c == nil {
		return Resolution{}, fmt.Errorf("payments.Resolve: %w", errNoClient)
	}
	j := entry.Journal()
	if j == nil {
		return Resolution{}, fmt.Errorf("payments.Resolve: %w: the entry was not read from a Journal", journal.ErrNotResolvable)
	}
	res, err := j.Resolve(ctx, s.c, entry, opts...)
	out := Resolution{Resolution: res}
	if err != nil || res.Answer == nil {
		return out, err
	}
	var init Initiation
	if err := json.Unmarshal(res.Answer, &init); err != nil {
		return out, fmt.Errorf("payments.Resolve: decoding the resend's answer: %w", err)
	}
	init.Service, init.Product = productOfPath(entry.URL)
	out.Initiation = &init
	return out, nil
}
