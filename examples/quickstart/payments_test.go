package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/payments"
)

// After the batch only an executed payment (ACSC, ACCC) is a good
// result: a cancelled one (CANC) is final but paid nothing, and is
// refused like a rejected one (RJCT) and one still pending. Before the
// fix the check (!IsFinal() || IsRejected()) passed CANC.
func TestCheckExecutedAfterBatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status payments.TransactionStatus
		ok     bool
		detail string
	}{
		{payments.StatusACSC, true, ""},
		{payments.StatusACCC, true, ""},
		{payments.StatusCANC, false, "CANC, cancelled"},
		{payments.StatusRJCT, false, "RJCT, rejected"},
		{payments.StatusACTC, false, "ACTC, accepted, not final yet"},
		{payments.StatusACCP, false, "ACCP"},
		{payments.StatusRCVD, false, "RCVD"},
	} {
		err := checkExecuted(&payments.StatusResponse{TransactionStatus: tc.status})
		if tc.ok {
			assert.NoError(t, err, tc.status)
			continue
		}
		if assert.Error(t, err, tc.status) {
			assert.Contains(t, err.Error(), tc.detail)
			assert.Contains(t, err.Error(), "not executed")
		}
	}
}
