package refresh_test

import (
	"encoding/hex"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
)

// TestEveryVerbHidesIDs: a Job and a Result show no account id, no
// session data and no transaction under any fmt verb (%d and %x
// included) or slog handler, as values and as pointers.
func TestEveryVerbHidesIDs(t *testing.T) {
	t.Parallel()
	sess := &sca.Session{Key: "kari@example.no", PSUID: "7a1c2f0e-5b3d-4e8f-9a6b-1c2d3e4f5a6b", TPPSessionID: "5f0c9a1e-sid",
		Context: client.Private, SCAAt: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC), AccountIDs: []string{"acc-MARK-1"}}
	job := newJob(t, sess, "acc-MARK-1", false)
	job.Cursor = refresh.Cursor{RefreshedAt: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	raw := []string{sess.Key, sess.PSUID, sess.TPPSessionID, "acc-MARK-1", "MARK-creditor", "tx-MARK-new"}
	secrets := append([]string(nil), raw...)
	for _, s := range raw {
		secrets = append(secrets, hex.EncodeToString([]byte(s)))
	}
	redacttest.AssertHidden(t, job, secrets)
	redacttest.AssertHidden(t, &job, secrets)

	res := refresh.Result{Job: job, Outcome: refresh.Done, Calls: 1, Cursor: job.Cursor,
		Booked: []accounts.Transaction{{TransactionID: "tx-MARK-new", CreditorName: "MARK-creditor"}}}
	redacttest.AssertHidden(t, res, secrets)
	redacttest.AssertHidden(t, &res, secrets)
}
