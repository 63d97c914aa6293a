package riverrefresh_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// nationalID is a Norwegian national identity number (fødselsnummer) a
// bank put in its tppMessage code field.
const nationalID = "01017012345"

// plantedCode answers every account call of the bank with status and a
// tppMessage whose code (and text) hold a national identity number.
type plantedCode struct {
	next   http.RoundTripper
	status func(path string) int
}

func (p *plantedCode) RoundTrip(req *http.Request) (*http.Response, error) {
	st := p.status(req.URL.Path)
	if st == 0 {
		return p.next.RoundTrip(req)
	}
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	body := `{"tppMessages":[{"category":"ERROR","code":"` + nationalID + `","text":"Ola Nordmann ` + nationalID + `"}]}`
	return &http.Response{StatusCode: st, Status: http.StatusText(st), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {req.Header.Get("X-Request-ID")}},
		Body:   io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
}

// River's job records hold only codes from the interface's list: a bank
// that answers 400 (refused: the job is cancelled) and 503 (transient:
// retried) with a national identity number in its code field leaves
// "OTHER" in River's tables, and the events say "OTHER". Before, the
// number was stored verbatim in the job's errors.
func TestRiverKeepsOnlyTheInterfacesCodes(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	acct := w.seeded.Customers[0].Accounts
	w.bank.next = &plantedCode{next: w.bank.next, status: func(path string) int {
		switch {
		case strings.Contains(path, "/accounts/"+acct[0].ID):
			return http.StatusBadRequest
		case strings.Contains(path, "/accounts/"+acct[1].ID):
			return http.StatusServiceUnavailable
		}
		return 0
	}}
	var mu sync.Mutex
	var events []riverrefresh.Event
	e := w.engine(t, riverrefresh.Config{Work: true, Event: func(ev riverrefresh.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, ev)
	}})
	require.NoError(t, e.Migrate(ctx))
	_, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	start(t, e)
	refused, transient := budget.Key(acct[0].ID, false), budget.Key(acct[1].ID, false)
	assert.Equal(t, "cancelled", stateEventually(t, e, w.schema, refused, "cancelled"))
	require.Eventually(t, func() bool {
		var n int
		err := e.Pool().QueryRow(ctx, "SELECT coalesce(array_length(errors, 1), 0) FROM "+w.schema+
			".river_job WHERE args->>'account' = $1", transient).Scan(&n)
		return err == nil && n > 0
	}, time.Minute, 20*time.Millisecond, "the transient failure is recorded")
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, e.Stop(stop))

	// Every row of every River table, as text.
	for _, table := range []string{"river_job", "river_queue", "river_leader", "river_migration"} {
		var n int
		require.NoError(t, e.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+"."+table+" r WHERE r::text LIKE '%'||$1||'%'",
			nationalID).Scan(&n))
		assert.Zero(t, n, "rows of %s holding the number", table)
	}
	var others int
	require.NoError(t, e.Pool().QueryRow(ctx, "SELECT count(DISTINCT j.id) FROM "+w.schema+".river_job j, unnest(j.errors) e "+
		`WHERE e->>'error' LIKE '%code "OTHER"%' AND j.args->>'account' IN ($1, $2)`, refused, transient).Scan(&others))
	assert.Equal(t, 2, others, "both jobs' errors name the code OTHER")
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, events)
	for _, ev := range events {
		assert.NotContains(t, ev.Code, nationalID)
		if ev.Kind == "discarded" {
			assert.Equal(t, "OTHER", ev.Code)
		}
	}
}
