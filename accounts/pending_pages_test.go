package accounts_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestEmulatorKnownIssuePendingEveryPage: in production mode
// (emulator.WithKnownIssues(true)) the emulator, like the platform
// (docs/interface.md section 8), sends the whole pending list with every
// page of a bookingStatus both list, as TransactionsPage.Pending
// documents. Reading the pages one by one shows the list three times;
// TransactionsIter yields each pending entry once and each booked entry
// once over the same three pages.
func TestEmulatorKnownIssuePendingEveryPage(t *testing.T) {
	t.Parallel()
	log := &requestLog{}
	s := testtpp.Server(t, emulator.WithKnownIssues(true), emulator.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	c := testtpp.NewClient(t, s, "Accounts pending pages AISP")
	b := &bank{s: s, c: c, svc: newService(t, c), log: log}
	ctx := t.Context()
	sess, id := b.firstAccount(ctx, t, emulator.CustomerKari)
	q := &accounts.TransactionQuery{Limit: 10} // Kari: 30 booked, 3 pending

	// Page by page: every page carries the same 3 pending entries.
	page, err := b.svc.Transactions(ctx, id, q, present(sess)...)
	require.NoError(t, err)
	first := texts(page.Pending)
	require.Len(t, first, 3)
	pages := 1
	for page.Next() != "" {
		page, err = b.svc.NextTransactions(ctx, id, page.Next(), present(sess)...)
		require.NoError(t, err)
		pages++
		assert.Equal(t, first, texts(page.Pending), "page %d repeats the whole pending list", pages)
	}
	require.Equal(t, 3, pages)
	before := b.log.countAll("method=GET", id, "/transactions")

	// The iterator: each entry once.
	booked, pending := map[string]int{}, map[string]int{}
	for tr, err := range b.svc.TransactionsIter(ctx, id, q, present(sess)...) {
		require.NoError(t, err)
		switch tr.Status {
		case accounts.BookingBooked:
			require.NotEmpty(t, tr.TransactionID)
			booked[tr.TransactionID]++
		case accounts.BookingPending:
			pending[tr.RemittanceInformationUnstructured]++
		default:
			t.Fatalf("entry of status %q", tr.Status)
		}
	}
	assert.Equal(t, 3, b.log.countAll("method=GET", id, "/transactions")-before, "the iterator read three pages")
	assert.Len(t, booked, 30)
	for tid, n := range booked {
		assert.Equal(t, 1, n, "booked %s", tid)
	}
	want := map[string]int{}
	for _, text := range first {
		want[strings.TrimPrefix(text, "pending:")] = 1
	}
	require.Len(t, want, 3, "Kari's pending entries have distinct texts")
	assert.Equal(t, want, pending, "each pending entry exactly once")
}
