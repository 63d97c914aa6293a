package payments_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// A signing basket's creation is journaled by the same hook (package
// basket attaches Journal.Hook with no product) and resolved the same
// way: a resend of the same payment ids is refused with 409
// STATUS_INVALID when the first basket exists (its payments are in it),
// and creates the basket when it never arrived.
func TestJournalBasket(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault emulator.FaultKind
		want  journal.ResolutionKind
	}{
		{"answer lost, basket created", emulator.FaultDropAfterBody, journal.ResolvedDuplicate},
		{"dropped before processing", emulator.FaultDropBeforeProcessing, journal.ResolvedCreated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			b := newBank(t)
			j, bankDone := agingJournal(t, b, store.NewMemoryStore())
			svc := journaled(t, b, j)
			p1, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "10.00"), b.pisp()...)
			require.NoError(t, err)
			p2, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "20.00"), b.pisp()...)
			require.NoError(t, err)

			b.s.Control().InjectFault(emulator.Fault{Kind: tc.fault, Method: http.MethodPost, PathPrefix: "/v1/signing-baskets"})
			id := uuid.NewString()
			_, err = b.c.Do(ctx, client.Operation{
				Name: "basket.Create", Method: http.MethodPost, Path: "/v1/signing-baskets",
				Body:     map[string][]string{"paymentIds": {p1.PaymentID, p2.PaymentID}},
				ResultID: "basketId", Hook: j.Hook(b.c, journal.Create{ResultID: "basketId", DuplicateStatus: http.StatusConflict, DuplicateCode: "STATUS_INVALID"}),
			}, nil, b.pisp(client.WithRequestID(id))...)
			require.ErrorIs(t, err, client.ErrOutcomeUnknown)
			bankDone()
			e, err := j.Entry(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, "basketId", e.Create.ResultID)
			assert.Equal(t, journal.OutcomeUnknown, e.Outcome)

			res, err := j.Resolve(ctx, b.c, e, b.pisp()...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Kind, res.Reason)
			if tc.want == journal.ResolvedCreated {
				assert.NotEmpty(t, res.ID, "the basket id")
				again, err := j.Resolve(ctx, b.c, e, b.pisp()...)
				require.NoError(t, err)
				assert.Equal(t, journal.ResolvedStatus, again.Kind)
				assert.Equal(t, string(payments.StatusRCVD), again.Status)
			}
			assert.Empty(t, inDoubt(t, j))
		})
	}
}
