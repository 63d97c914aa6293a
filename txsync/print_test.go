package txsync_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/txsync"
)

// logged is v as log/slog's JSON handler writes it under "v".
func logged(t *testing.T, v any) map[string]any {
	t.Helper()
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, nil)).Info("m", "v", v)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &rec))
	return map[string]any{"v": rec["v"]}
}

// TestPrintEveryVerb: each type the sync reports prints one text under
// every fmt verb (%q quoted, %#v too), generated from its form, and logs
// the facts it shows as a group; a nil Delta prints as nil.
func TestPrintEveryVerb(t *testing.T) {
	t.Parallel()
	d, err := date.Parse("2026-03-10")
	require.NoError(t, err)
	an := txsync.Anomaly{Key: "k1", Kind: txsync.FutureBooked, Date: d}
	const anText = "txsync.Anomaly{key=k1 kind=booked in the future date=2026-03-10}"
	redacttest.AssertVerbs(t, an, anText, anText)
	assert.Equal(t, map[string]any{"v": map[string]any{"key": "k1", "kind": "booked in the future", "date": "2026-03-10"}}, logged(t, an))

	la := txsync.LinkedAccount{ResourceID: "enc!!resource-xyz", Card: true, Key: "ak", New: true}
	const laText = "txsync.LinkedAccount{key=ak card=true new=true}"
	redacttest.AssertVerbs(t, la, laText, laText)
	assert.Equal(t, map[string]any{"v": map[string]any{"key": "ak", "card": true, "new": true}}, logged(t, la))

	delta := &txsync.Delta{Added: []txsync.Entry{{Key: "k1"}}, Overflow: 3, Anomalies: []txsync.Anomaly{an}}
	const dText = "txsync.Delta{added=1 changed=0 removed=0 overflow=3 anomalies=1}"
	redacttest.AssertVerbs(t, delta, dText, dText)
	assert.Equal(t, map[string]any{"v": map[string]any{"added": 1.0, "changed": 0.0, "removed": 0.0, "first": "false", "overflow": 3.0, "anomalies": 1.0}}, logged(t, delta))
	redacttest.AssertVerbs(t, &txsync.Delta{}, "txsync.Delta{added=0 changed=0 removed=0}", "txsync.Delta{added=0 changed=0 removed=0}")
	redacttest.AssertVerbs(t, (*txsync.Delta)(nil), "txsync.Delta(nil)", "txsync.Delta(nil)")

	v := txsync.Version{Status: "booked", TransactionID: "ID-1", BookingDate: d, Amount: "-300.00", Currency: "NOK", Counterparty: "Ola", Text: "Husleie"}
	const vText = "txsync.Version{status=booked transactionId=[redacted] bookingDate=2026-03-10 amount=-300.00 currency=NOK counterparty=[redacted] text=[redacted]}"
	redacttest.AssertVerbs(t, v, vText, vText)
	r := txsync.Removal{Key: "k2", Previous: v, Reason: txsync.BookedGone}
	rText := `txsync.Removal{key=k2 reason="booked no longer listed" previous=` + vText + "}"
	redacttest.AssertVerbs(t, r, rText, rText)
}
