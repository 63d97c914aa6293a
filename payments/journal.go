package payments

import (
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
