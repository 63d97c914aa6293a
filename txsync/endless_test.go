package txsync_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// A bank whose next links keep coming (a new offset on every page, each
// page full) cannot make Sync hold its pages without end: past
// MaxReadEntries the read ends in ErrReadTooLarge, nothing is applied,
// and no further page is asked for. With the PSU present no budget
// bounds the pages.
func TestSyncEndlessPagesAreBounded(t *testing.T) {
	t.Parallel()
	pages := txsync.MaxReadEntries/perPage + 50 // the bank stops there: beyond the bound
	svc, present, served := endlessBank(t, pages)
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	_, err = s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "acc", Currency: "NOK"}}, nil)
	require.NoError(t, err)
	d, err := s.Sync(t.Context(), svc, "acc", present)
	require.ErrorIs(t, err, txsync.ErrReadTooLarge)
	assert.Nil(t, d, "nothing applied")
	assert.LessOrEqual(t, served.Load(), int64(txsync.MaxReadEntries/perPage+1), "no page asked for past the bound")
}

// A Syncer that keeps more entries than MaxReadEntries (WithMaxEntries)
// reads as many: a read of 105,000 entries is not refused as too large.
func TestSyncReadBoundFollowsMaxEntries(t *testing.T) {
	t.Parallel()
	pages := txsync.MaxReadEntries/perPage + 10
	svc, present, served := endlessBank(t, pages)
	s, err := txsync.New(store.NewMemoryStore(), txsync.WithMaxEntries(txsync.MaxReadEntries+20*perPage))
	require.NoError(t, err)
	_, err = s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "acc", Currency: "NOK"}}, nil)
	require.NoError(t, err)
	_, err = s.Sync(t.Context(), svc, "acc", present)
	assert.NotErrorIs(t, err, txsync.ErrReadTooLarge)
	assert.Equal(t, int64(pages), served.Load(), "every page read")
}

// perPage is the entries of a page of endlessBank.
const perPage = 500

// endlessBank is a bank whose transaction pages, perPage entries each,
// link to a next page until the pages-th; it returns an accounts service
// of it, the PSU's request options and the count of pages served.
func endlessBank(t *testing.T, pages int) (*accounts.Service, client.RequestOption, *atomic.Int64) {
	var served atomic.Int64
	bank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(served.Add(1))
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		booked := make([]map[string]any, perPage)
		day := time.Now().UTC().Format(time.DateOnly)
		for i := range booked {
			booked[i] = map[string]any{"transactionId": fmt.Sprintf("t%d-%d", off, i), "bookingDate": day, "valueDate": day,
				"transactionAmount": map[string]string{"amount": "-1.00", "currency": "NOK"}}
		}
		links := map[string]any{}
		if n < pages {
			links["next"] = map[string]any{"href": fmt.Sprintf("/v1/accounts/acc/transactions?bookingStatus=both&offset=%d", off+perPage), "verbs": []string{"GET"}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"account": map[string]string{"bban": "95312776066"},
			"transactions": map[string]any{"booked": booked, "pending": []any{}, "_links": links}})
	}))
	t.Cleanup(bank.Close)
	svc, present := bankService(t, bank.URL)
	return svc, present, &served
}

// bankService returns an accounts service of the bank at url and the
// PSU's request options.
func bankService(t *testing.T, url string) (*accounts.Service, client.RequestOption) {
	emu := emulator.NewServer()
	t.Cleanup(emu.Close)
	creds, err := emu.NewTPP("txsync endless")
	require.NoError(t, err)
	c, err := client.New(url, creds, client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	sess := &sca.Session{PSUID: "0b5e8a3c-3a8f-4c1e-9d5a-2b7f6c1d9e40", TPPSessionID: "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b",
		Context: client.PSUContext("PRIVATE"), SCAAt: time.Now()}
	return svc, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"})
}

// A bank whose pages each hold one entry of 4 MB (the most an answer
// may be) and whose next links keep coming cannot make Sync hold a
// thousand of them (MaxReadEntries counts entries, not their bytes; the
// iterator's MaxPages allows 10,000 pages, 40 GB): past MaxReadBytes of
// entries the read ends in ErrReadTooLarge, nothing applied, no further
// page asked for.
func TestSyncPagesOfHugeEntriesAreBounded(t *testing.T) {
	t.Parallel()
	const pages = txsync.MaxReadBytes/(4<<20) + 20 // the bank stops there: beyond the bound
	huge := strings.Repeat("x", 4<<20-400)
	var served atomic.Int64
	bank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(served.Add(1))
		next := ""
		if n < pages {
			next = fmt.Sprintf(`"next":{"href":"/v1/accounts/acc/transactions?bookingStatus=both&offset=%d"}`, n)
		}
		day := time.Now().UTC().Format(time.DateOnly)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"transactions":{"booked":[{"transactionId":"t`+strconv.Itoa(n)+`","bookingDate":"`+day+
			`","transactionAmount":{"amount":"-1.00","currency":"NOK"},"remittanceInformationUnstructured":"`+huge+
			`"}],"pending":[],"_links":{`+next+`}}}`)
	}))
	t.Cleanup(bank.Close)
	svc, present := bankService(t, bank.URL)
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	_, err = s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "acc", Currency: "NOK"}}, nil)
	require.NoError(t, err)
	d, err := s.Sync(t.Context(), svc, "acc", present)
	require.ErrorIs(t, err, txsync.ErrReadTooLarge)
	assert.Nil(t, d, "nothing applied")
	assert.LessOrEqual(t, served.Load(), int64(txsync.MaxReadBytes/(4<<20)+2), "no page asked for past the bound")
}
