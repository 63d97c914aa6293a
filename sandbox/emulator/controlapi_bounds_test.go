package emulator

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The control API as a test suite in another language drives it: every
// argument bounded, refused with a 4xx naming the field before any work,
// and no success for a call that did not do what it was asked.

// TestControlAPIClockStaysInRange: the bank's clock cannot be set or
// moved more than 100 years from the server's (a clock in the year 9999
// wrapped round to 2319 and answered 200; days=1e308 did the same); in Go
// it stops at the bound instead of wrapping round.
func TestControlAPIClockStaysInRange(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	before := s.Control().Now()
	for _, tc := range []struct{ name, body, field string }{
		{"set-time", `{"time":"9999-12-31T23:59:59Z"}`, "time:"},
		{"set-time", `{"time":"0001-01-01"}`, "time:"},
		{"advance", `{"days":1e308}`, "days:"},
		{"advance", `{"days":-9223372036854775807}`, "days:"},
		{"advance", `{"by":"2562047h"}`, "by:"},
		{"advance", `{"by":"36501d"}`, "by:"},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s %s: %v", tc.name, tc.body, body)
		assert.Contains(t, body["error"], tc.field, tc.body)
		assert.Equal(t, before, s.Control().Now(), "%s %s moved the clock", tc.name, tc.body)
	}

	// Two moves of 100 years: the second would pass the bound.
	status, body := ctl.call(http.MethodPost, "advance", `{"by":"36000d"}`)
	require.Equal(t, http.StatusOK, status, body)
	moved := s.Control().Now()
	status, body = ctl.call(http.MethodPost, "advance", `{"days":36000}`)
	assert.Equal(t, http.StatusBadRequest, status, body)
	assert.Equal(t, moved, s.Control().Now())

	// In Go the clock stops at the bound, frozen or running, however
	// often it is moved (the offset used to wrap round after three).
	for _, frozen := range []bool{true, false} {
		g := startServer(t)
		if frozen {
			g.Control().Freeze()
		}
		for range 4 {
			g.Control().Advance(maxClockShift)
		}
		assert.InDelta(t, maxClockShift.Hours(), time.Until(g.Control().Now()).Hours(), 1, "frozen %v", frozen)
		g.Control().SetTime(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))
		assert.InDelta(t, -maxClockShift.Hours(), time.Until(g.Control().Now()).Hours(), 1, "frozen %v", frozen)
		_, err := json.Marshal(g.Control().Now())
		assert.NoError(t, err)
	}
}

// TestControlAPIArgumentsNameTheField: a key no control takes is refused
// (a misspelt "retry_after" gave a 1 s Retry-After and 200), and every
// refused value names its field.
func TestControlAPIArgumentsNameTheField(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, tc := range []struct{ name, body, field string }{
		{"rate-limit-storm", `{"retry_after":"5s","for":"1m"}`, `"retry_after"`},
		{"outage", `{"kind":"unavailable","for":"soon"}`, "for:"},
		{"outage", `{"kind":"unavailable","for":"1m","durée":"1m"}`, `"durée"`},
		{"add-twins", `{"accountId":"x","n":"two"}`, "n:"},
		{"advance", `{"days":"1"}`, "days:"},
		{"advance", `{"days":1} {"days":2}`, "more than white space"},
		{"advance", `[{"days":1}]`, "JSON object"},
		{"advance", `"89d"`, "JSON object"},
		{"seed", `{"customers":[{"acounts":[{}]}]}`, `customers: json: unknown field "acounts"`},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s %s: %v", tc.name, tc.body, body)
		assert.Contains(t, body["error"], tc.field, tc.body)
	}
	assert.Empty(t, s.out.list, "no outage started")
	status, body := ctl.call(http.MethodPost, "advance", `{"DAYS":1}`)
	assert.Equal(t, http.StatusOK, status, "keys match without regard to case, as before: %v", body)
	status, body = ctl.call(http.MethodPost, "freeze", `null`)
	assert.Equal(t, http.StatusOK, status, "null is no arguments, as before: %v", body)
}

// TestControlAPIFaultArguments: a status that is no error status, a
// negative count or delay are refused (they answered 200 and then did
// something else: a 503, one request, a hang without end), and so is a
// fault past maxFaults armed.
func TestControlAPIFaultArguments(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, tc := range []struct{ body, field string }{
		{`{"kind":"status","status":42}`, "status:"},
		{`{"kind":"status","status":200}`, "status:"},
		{`{"kind":"status","status":9223372036854775807}`, "status:"},
		{`{"kind":"status","count":-1}`, "count:"},
		{`{"kind":"hang","delay":"-1s"}`, "delay:"},
	} {
		status, body := ctl.call(http.MethodPost, "inject-fault", tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", tc.body, body)
		assert.Contains(t, body["error"], tc.field, tc.body)
	}
	s.mu.RLock()
	assert.Empty(t, s.faults.armed)
	s.mu.RUnlock()
	status, body := ctl.call(http.MethodPost, "inject-fault", `{"kind":"status","status":500,"count":2}`)
	assert.Equal(t, http.StatusOK, status, body)

	// At most maxFaults armed at once (each call added one to the list
	// every bank request walks, without end).
	for s.faultsArmed() < maxFaults {
		s.Control().InjectFault(Fault{Kind: FaultStatus, PathPrefix: "/never"})
	}
	status, body = ctl.call(http.MethodPost, "inject-fault", `{"kind":"status"}`)
	assert.Equal(t, http.StatusUnprocessableEntity, status, body)
	assert.Equal(t, maxFaults, s.faultsArmed())
}

// TestFlappingPhasesBounded: phases of a nanosecond are refused by the
// control API and count as minFlapPhase in Go (they kept the doorman
// shutting and opening the listener without pause for the whole span);
// a slow bank's p50 or p99 past maxLatency is refused (it answered 200
// and waited maxLatency).
func TestFlappingPhasesBounded(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	status, body := ctl.call(http.MethodPost, "flapping", `{"kind":"refused","down":"1ns","up":"1ns","for":"1h"}`)
	assert.Equal(t, http.StatusBadRequest, status, body)
	assert.Contains(t, body["error"], "down, up:")
	assert.Empty(t, s.out.list)

	for _, body := range []string{`{"p50":"11m","for":"1h"}`, `{"p50":"1s","p99":"1000h","for":"1h"}`} {
		status, body := ctl.call(http.MethodPost, "slow-bank", body)
		assert.Equal(t, http.StatusBadRequest, status, "a delay past maxLatency: %v", body)
		assert.Contains(t, body["error"], "p50, p99:")
	}
	assert.Empty(t, s.out.list)

	s.Control().Flapping(OutageUnavailable, time.Nanosecond, time.Nanosecond, time.Hour)
	s.Control().Advance(minFlapPhase + minFlapPhase/2) // in the first up phase
	first, _ := s.out.current(s.now())
	assert.Nil(t, first, "up for minFlapPhase after minFlapPhase down")
	s.Control().Advance(minFlapPhase)
	first, _ = s.out.current(s.now())
	assert.NotNil(t, first, "down again")
}

// TestControlAPISeedBodyBounded: the values of a seed's arrays are
// counted against the bank's Limits before the body is decoded: a body of
// empty entries ("{}," is 3 bytes, a decoded transaction some 170) no
// longer unfolds into gigabytes before the seed's own limits refuse it.
func TestControlAPISeedBodyBounded(t *testing.T) {
	s := startServer(t, WithLimits(Limits{Customers: 5, Accounts: 5, Agreements: 5, Transactions: 10}))
	newTPPClient(t, s, "Seed TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	body := `{"customers":[{"accounts":[{"transactions":[` + strings.Repeat(`{},`, 2000) + `{}]}]}]}`
	status, out := ctl.call(http.MethodPost, "seed", body)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status, out)
	assert.Equal(t, "TOO_LARGE", out["code"])
	// Commas and brackets in strings are not values.
	status, out = ctl.call(http.MethodPost, "seed", `{"customers":[{"name":"`+strings.Repeat(`[,`, 2000)+`"}]}`)
	assert.NotEqual(t, http.StatusRequestEntityTooLarge, status, out)

	// A body past maxControlBody.
	status, out = ctl.call(http.MethodPost, "seed", `{"customers":[{"name":"`+strings.Repeat("a", maxControlBody)+`"}]}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status, out)

	// With the default limits: a million empty transactions (3 MB) are
	// refused without decoding them (they allocated some 750 MB).
	d := startServer(t)
	newTPPClient(t, d, "Seed TPP")
	dctl := &controlClient{t: t, h: d.ControlHandler("tok"), token: "tok"}
	body = `{"customers":[{"accounts":[{"transactions":[` + strings.Repeat(`{},`, 1_000_000) + `{}]}]}]}`
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	status, out = dctl.call(http.MethodPost, "seed", body)
	runtime.ReadMemStats(&m1)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status, out)
	assert.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(64<<20), "bytes allocated for the refused seed")
}

// TestSeedPastLimitsBeforeBuilding: a seed that alone passes a cap is
// refused before its entries are built (it built every entry first, and
// so reported the first bad entry, past the cap, instead).
func TestSeedPastLimitsBeforeBuilding(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithLimits(Limits{Customers: 2}))
	c := newTPPClient(t, s, "Seed TPP")
	data := SeedData{Customers: []SeedCustomer{{}, {Number: "not a number"}, {}}}
	_, err := s.Control().Seed(t.Context(), c.creds.Certificate, data)
	var se *SeedError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, "Limits.Customers", se.Path)
	assert.ErrorIs(t, err, ErrSeedLimit)
}

// TestControlAPIAddTwinsHugeN: n near the largest int is refused by the
// Transactions cap (have+n wrapped round, passed the cap and panicked in
// make).
func TestControlAPIAddTwinsHugeN(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	newTPPClient(t, s, "Twins TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	status, out := ctl.call(http.MethodPost, "seed", `{"customers":[{"accounts":[{"balance":"10.00"}],"consent":{}}]}`)
	require.Equal(t, http.StatusOK, status, out)
	id := out["customers"].([]any)[0].(map[string]any)["accounts"].([]any)[0].(map[string]any)["id"].(string)
	status, out = ctl.call(http.MethodPost, "add-twins", `{"accountId":"`+id+`","n":9223372036854775807,"transaction":{"amount":"-1.00"}}`)
	assert.Equal(t, http.StatusUnprocessableEntity, status, out)
	assert.Contains(t, out["error"], "Limits.Transactions")
}

// TestControlAPIUnknownCustomerOrAccount: a control for a customer number
// or a BBAN the bank does not have answers 404 (it answered 200 and
// changed nothing: a misspelt number passed for a revoked consent).
func TestControlAPIUnknownCustomerOrAccount(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, tc := range []struct{ name, body, field string }{
		{"revoke-consent", `{"customerNumber":"13039319956"}`, "customerNumber:"},
		{"revoke-consent", ``, "customerNumber:"},
		{"set-last-online-sca", `{"customerNumber":"1","at":"2025-06-01"}`, "customerNumber:"},
		{"remove-payment-permission", `{"bban":"12345678903"}`, "bban:"},
		{"restore-payment-permission", `{"bban":"` + strings.Repeat("9", 30) + `"}`, "bban:"},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusNotFound, status, "%s %s: %v", tc.name, tc.body, body)
		assert.Contains(t, body["error"], tc.field, tc.body)
	}
	s.mu.RLock()
	assert.Empty(t, s.scn.noPayments)
	assert.Empty(t, s.scn.onlineSCA)
	s.mu.RUnlock()
	for _, tc := range []struct{ name, body string }{
		{"revoke-consent", `{"customerNumber":"` + CustomerKari + `"}`},
		{"set-last-online-sca", `{"customerNumber":"` + CustomerKari + `","at":"2025-06-01"}`},
		{"remove-payment-permission", `{"bban":"` + kariBruk + `"}`},
		{"restore-payment-permission", `{"bban":"` + kariBruk + `"}`},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusOK, status, "%s %s: %v", tc.name, tc.body, body)
	}
}

// TestMultiBankBounded: past maxBanks hosts NewMultiBank refuses before
// starting any bank (past the 9,000 bank codes it looked for a free one
// for ever).
func TestMultiBankBounded(t *testing.T) {
	t.Parallel()
	hosts := make([]string, maxBanks+1)
	for i := range hosts {
		hosts[i] = "b" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "-" + strconv.Itoa(i) + ".localhost"
	}
	m, err := NewMultiBank(hosts)
	if m != nil {
		m.Close()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at most")
}

// TestControlAPIRacesWithBankCalls: control calls over HTTP (the clock,
// outages, faults, scenario data) while a TPP reads accounts, for the
// race detector; every control answers 200 and the bank answers after.
func TestControlAPIRacesWithBankCalls(t *testing.T) {
	t.Parallel()
	s, c, ids, psu := aisSetup(t)
	h := s.ControlHandler("tok")
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				path := "/v1/accounts"
				if i%2 == 1 {
					path = "/v1/accounts/" + ids[0] + "/transactions?bookingStatus=both"
				}
				resp, err := c.hc.Do(c.build(http.MethodGet, path, nil, psu...))
				if err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	calls := []struct{ name, body string }{
		{"advance", `{"by":"1h"}`}, {"set-time", `{"time":"2026-03-01T09:00:00+01:00"}`},
		{"freeze", ``}, {"resume", ``},
		{"outage", `{"kind":"unavailable","for":"1s"}`}, {"slow-bank", `{"p50":"1ms","for":"1s"}`},
		{"rate-limit-storm", `{"for":"1s"}`}, {"end-outages", ``},
		{"inject-fault", `{"kind":"status","status":503}`},
		{"add-transaction", `{"accountId":"` + ids[0] + `","transaction":{"amount":"-1.00"}}`},
		{"set-unfiltered-pending", `{"on":true}`},
		{"remove-payment-permission", `{"bban":"` + kariBruk + `"}`}, {"restore-payment-permission", `{"bban":"` + kariBruk + `"}`},
	}
	var cw sync.WaitGroup
	for g := range 2 {
		cw.Add(1)
		go func() {
			defer cw.Done()
			for i := range 40 {
				call := calls[(i+g)%len(calls)]
				req := httptest.NewRequest(http.MethodPost, "/controls/"+call.name, strings.NewReader(call.body))
				req.Header.Set("Authorization", "Bearer tok")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				assert.Equal(t, http.StatusOK, rec.Code, "%s: %s", call.name, rec.Body)
			}
		}()
	}
	cw.Wait()
	close(done)
	wg.Wait()
	s.Control().EndOutages()
	s.Control().Resume()
	resp, err := c.hc.Do(c.build(http.MethodGet, "/v1/accounts", nil, psu...))
	require.NoError(t, err)
	resp.Body.Close()
}

// TestControlAPIOutagesBounded: past maxOutages running at once, a new
// one is refused (every call added one to the list each bank request
// walks, without end); end-outages makes room.
func TestControlAPIOutagesBounded(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for range maxOutages {
		s.Control().RateLimitStorm(time.Second, time.Hour)
	}
	for _, tc := range []struct{ name, body string }{
		{"outage", `{"kind":"unavailable","for":"1m"}`},
		{"flapping", `{"kind":"unavailable","down":"10s","up":"50s","for":"1h"}`},
		{"slow-bank", `{"p50":"300ms","for":"10m"}`},
		{"rate-limit-storm", `{"retryAfter":"5s","for":"1m"}`},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusUnprocessableEntity, status, "%s: %v", tc.name, body)
	}
	assert.Equal(t, maxOutages, s.outagesRunning())
	status, body := ctl.call(http.MethodPost, "end-outages", "")
	require.Equal(t, http.StatusOK, status, body)
	status, body = ctl.call(http.MethodPost, "outage", `{"kind":"unavailable","for":"1m"}`)
	assert.Equal(t, http.StatusOK, status, body)
}

// TestControlAPITextsBounded: every key, string and number of the
// arguments is at most maxControlText characters (a few keys' values
// longer), and the arguments nest at most maxControlDepth deep, each
// refusal naming the field by its path, before anything is decoded or
// kept (a seed's product, a fault's path of megabytes were kept for the
// life of the server); a value of the wrong type inside an argument
// names the field inside it.
func TestControlAPITextsBounded(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	newTPPClient(t, s, "Texts TPP")
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	long := strings.Repeat("x", maxControlText+1)
	for _, tc := range []struct{ name, body, field string }{
		{"seed", `{"customers":[{"accounts":[{},{"product":"` + long + `"}]}]}`, "customers[0].accounts[1].product: at most 256 characters"},
		{"seed", `{"customers":[{"accounts":[{"transactions":[{"code":"` + long + `"}]}]}]}`, "customers[0].accounts[0].transactions[0].code: at most 256"},
		{"inject-fault", `{"kind":"status","pathPrefix":"/` + long + `"}`, "pathPrefix: at most 256"},
		{"revoke-consent", `{"customerNumber":` + strings.Repeat("9", 1000) + `}`, "customerNumber: at most 256"},
		{"restore-payment-permission", `{"bban":"` + strings.Repeat("9", 1000) + `"}`, "bban: at most 256"},
		{"set-roles", `{"roles":["AISP","` + long + `"]}`, "roles[1]: at most 256"},
		{"reconsent", `{"tpp":"` + strings.Repeat("A", 65<<10) + `","customerId":"x"}`, "tpp: at most 65536"},
		{"authorize", `{"scaRedirect":"https://x/` + strings.Repeat("a", 9<<10) + `"}`, "scaRedirect: at most 8192"},
		{"advance", `{"` + long + `":1}`, "a key of more than 256"},
		{"seed", strings.Repeat(`{"customers":[`, 9) + strings.Repeat(`]}`, 9), "nest deeper than 16"},
		{"advance", `"` + long + `"`, "the arguments: at most 256"},
		{"seed", `{"customers":[{"accounts":[{"balance":5}]}]}`, "customers.Accounts.Balance: want string"},
		{"add-transaction", `{"accountId":"x","transaction":{"amount":-5}}`, "transaction.Amount: want string"},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s %.200s: %v", tc.name, tc.body, body)
		assert.Contains(t, body["error"], tc.field, "%s %.200s", tc.name, tc.body)
		assert.Less(t, len(body["error"].(string)), 400, "%s: the error is short", tc.name)
	}
	s.mu.RLock()
	assert.Empty(t, s.faults.armed)
	assert.Empty(t, s.stores, "nothing seeded")
	s.mu.RUnlock()

	// Texts of the longest the bank takes pass: 256 characters of two
	// bytes each, a certificate, an SCA link.
	status, body := ctl.call(http.MethodPost, "seed", `{"customers":[{"accounts":[{"product":"`+strings.Repeat("ø", maxControlText)+`"}]}]}`)
	assert.Equal(t, http.StatusOK, status, body)
}

// TestControlAPIArgumentsThatWouldDoNothing: arguments that answered 200
// and then did nothing, or something else, are refused naming the field:
// a status, retryAfter or delay on a fault of another kind, a fault
// method or path no request has (the fault stayed armed for ever), a
// negative Retry-After (it was 1 s), a p99 below p50 (every delay was
// p50); an unknown outage kind names kind.
func TestControlAPIArgumentsThatWouldDoNothing(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, tc := range []struct{ name, body, field string }{
		{"inject-fault", `{"kind":"hang","status":500}`, "status: only a fault of kind status"},
		{"inject-fault", `{"kind":"status","retryAfter":"5s"}`, "retryAfter: only a fault of kind rate-limit"},
		{"inject-fault", `{"kind":"rate-limit","delay":"5s"}`, "delay: only a fault of kind hang"},
		{"inject-fault", `{"kind":"rate-limit","retryAfter":"-5s"}`, "retryAfter:"},
		{"inject-fault", `{"kind":"status","method":"POST /v1/payments"}`, "method:"},
		{"inject-fault", `{"kind":"status","method":"PSOT"}`, "method:"},
		{"inject-fault", `{"kind":"status","pathPrefix":"v1/payments/"}`, "pathPrefix:"},
		{"inject-fault", `{"kind":"statuss"}`, "kind:"},
		{"inject-fault", `{"kind":"status","count":1000001}`, "count: the number of requests to fail, 1 to 1000000"},
		{"inject-fault", `{"kind":"status","count":9223372036854775807}`, "count:"},
		{"rate-limit-storm", `{"retryAfter":"-1s","for":"1m"}`, "retryAfter:"},
		{"slow-bank", `{"p50":"2s","p99":"1s","for":"1m"}`, "p99:"},
		{"outage", `{"kind":"down","for":"1m"}`, "kind:"},
		{"flapping", `{"kind":"","down":"10s","up":"50s","for":"1h"}`, "kind:"},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s %s: %v", tc.name, tc.body, body)
		assert.Contains(t, body["error"], tc.field, tc.body)
	}
	s.mu.RLock()
	assert.Empty(t, s.faults.armed)
	s.mu.RUnlock()
	assert.Empty(t, s.out.list)

	for _, tc := range []struct{ name, body string }{
		{"inject-fault", `{"kind":"rate-limit","retryAfter":"5s","method":"post","pathPrefix":"/api/v1/payments/"}`},
		{"inject-fault", `{"kind":"hang","delay":"1s","method":"GET"}`},
		{"slow-bank", `{"p50":"1s","p99":"1s","for":"1m"}`},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusOK, status, "%s %s: %v", tc.name, tc.body, body)
	}
	s.mu.RLock()
	require.Len(t, s.faults.armed, 2)
	assert.Equal(t, "POST", s.faults.armed[0].Method)
	assert.Equal(t, "/v1/payments/", s.faults.armed[0].PathPrefix)
	s.mu.RUnlock()
}

// TestControlAPIRefusalsNameTheField: an unknown SCA link, account,
// transaction reference, customer id or payment answers 404 naming its
// field (they answered "unknown account or transaction", "unknown
// payment" or "unknown or completed authorisation", and a customer id
// unknown to reconsent an unknown transaction); a bad value inside
// add-transaction's transaction or set-settlement's settlement names
// the field inside it (it named Amount, LateDays alone).
func TestControlAPIRefusalsNameTheField(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	newTPPClient(t, s, "Names TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	status, out := ctl.call(http.MethodPost, "seed", `{"customers":[{"accounts":[{"balance":"10.00"}],"consent":{}}]}`)
	require.Equal(t, http.StatusOK, status, out)
	cu := out["customers"].([]any)[0].(map[string]any)
	id := cu["accounts"].([]any)[0].(map[string]any)["id"].(string)
	link := `"scaRedirect":"https://127.0.0.1/tap-sandbox/9999/?state=nosuchstate"`
	for _, tc := range []struct {
		name, body, field string
		want              int
	}{
		{"authorize", `{` + link + `,"customerNumber":"` + CustomerKari + `"}`, "scaRedirect:", http.StatusNotFound},
		{"authorize-corporate", `{` + link + `,"customerNumber":"` + CustomerKari + `"}`, "scaRedirect:", http.StatusNotFound},
		{"authorize-in-context", `{` + link + `,"customerNumber":"` + CustomerKari + `","context":"PRIVATE"}`, "scaRedirect:", http.StatusNotFound},
		{"reject", `{"scaRedirect":"not a link"}`, "scaRedirect:", http.StatusNotFound},
		{"reconsent", `{"customerId":"enc!!nosuchcustomer"}`, "customerId:", http.StatusNotFound},
		{"add-transaction", `{"accountId":"enc!!nosuchaccount","transaction":{"amount":"-1.00"}}`, "accountId:", http.StatusNotFound},
		{"add-twins", `{"accountId":"enc!!nosuchaccount","n":2,"transaction":{"amount":"-1.00"}}`, "accountId:", http.StatusNotFound},
		{"change-transaction-id", `{"accountId":"enc!!nosuchaccount","ref":"x"}`, "accountId:", http.StatusNotFound},
		{"change-transaction-id", `{"accountId":"` + id + `","ref":"x"}`, "ref:", http.StatusNotFound},
		{"book-pending", `{"accountId":"enc!!nosuchaccount","ref":"pending-x"}`, "accountId:", http.StatusNotFound},
		{"book-pending", `{"accountId":"` + id + `","ref":"pending-x"}`, "ref:", http.StatusNotFound},
		{"drop-pending", `{"accountId":"` + id + `","ref":"pending-x"}`, "ref:", http.StatusNotFound},
		{"set-settlement", `{"paymentId":"enc!!nosuchpayment"}`, "paymentId:", http.StatusNotFound},
		{"twin", `{"paymentId":"enc!!nosuchpayment"}`, "paymentId:", http.StatusNotFound},
		{"unrelated-credit", `{"paymentId":"enc!!nosuchpayment"}`, "paymentId:", http.StatusNotFound},
		{"add-transaction", `{"accountId":"` + id + `","transaction":{"amount":"0"}}`, "transaction.Amount:", http.StatusBadRequest},
		{"add-twins", `{"accountId":"` + id + `","n":0,"transaction":{"amount":"-1.00"}}`, "n:", http.StatusBadRequest},
		{"set-settlement", `{"paymentId":"enc!!x","settlement":{"lateDays":61}}`, "settlement.LateDays:", http.StatusBadRequest},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, tc.want, status, "%s %s: %v", tc.name, tc.body, body)
		assert.Contains(t, body["error"], tc.field, "%s %s", tc.name, tc.body)
	}

	// unrelated-credit's text counts characters, as a remittance does
	// (140 two-byte characters were refused as more than 140).
	c := newTPPClient(t, s, "Credit TPP")
	pid, _, _ := approvedKID(t, s, c, "49.00")
	_, err := s.Control().UnrelatedCredit(pid, strings.Repeat("ø", 140))
	require.NoError(t, err)
	_, err = s.Control().UnrelatedCredit(pid, strings.Repeat("ø", 141))
	var se *SeedError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "text", se.Path)
}

// TestControlAPISettlementFeeRead: a settlement's fee that cannot be read
// as money is refused naming settlement.fee (it was read as no fee: 200,
// and the credit booked whole).
func TestControlAPISettlementFeeRead(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Fee TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	pid, _, _ := approvedKID(t, s, c, "49.00")
	for _, fee := range []string{`{"amount":"abc","currency":"NOK"}`, `{"amount":"5.00"}`, `{"amount":"5.001","currency":"NOK"}`, `{"amount":"5.00","curency":"NOK"}`, `"5.00"`} {
		status, out := ctl.call(http.MethodPost, "set-settlement", `{"paymentId":"`+pid+`","settlement":{"fee":`+fee+`}}`)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", fee, out)
		assert.Contains(t, out["error"], "settlement.fee", fee)
	}
	s.mu.RLock()
	assert.Empty(t, s.pay.settlements)
	s.mu.RUnlock()
	status, out := ctl.call(http.MethodPost, "set-settlement", `{"paymentId":"`+pid+`","settlement":{"fee":{"amount":"5.00","currency":"NOK"}}}`)
	assert.Equal(t, http.StatusOK, status, out)
}

// TestControlAPIUnknownTPP: a tpp certificate of no TPP the bank has
// registered is refused naming tpp (authorisations and consents answered
// an empty list; seed, reconsent and grant-agreement did not name the
// field); set-roles has its own check (roleCertificate).
func TestControlAPIUnknownTPP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Known TPP")
	other, err := startServer(t).NewTPP("Stranger TPP")
	require.NoError(t, err)
	stranger := `"tpp":"` + encodeCert(other.Certificate.Raw) + `"`
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, tc := range []struct{ name, body string }{
		{"authorisations", `{` + stranger + `}`},
		{"consents", `{` + stranger + `,"customerNumber":"` + CustomerKari + `"}`},
		{"seed", `{` + stranger + `,"customers":[]}`},
		{"reconsent", `{` + stranger + `,"customerId":"x"}`},
		{"grant-agreement", `{` + stranger + `,"agreementId":"x","customerNumber":"` + CustomerKari + `"}`},
		{"set-roles", `{"tpp":"MIIBnotacert","roles":["AISP"]}`},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", tc.name, body)
		assert.Contains(t, body["error"], "tpp:", tc.name)
	}
	status, body := ctl.call(http.MethodPost, "authorisations", `{"tpp":"`+encodeCert(c.creds.Certificate.Raw)+`"}`)
	assert.Equal(t, http.StatusOK, status, body)
}

// TestControlAPIProfileAndTPPNameTheField: a bad profile and a missing
// tpp with several TPPs name their field first (they began "emulator:
// profile consent=..." and "the bank has 2 registered TPPs").
func TestControlAPIProfileAndTPPNameTheField(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	newTPPClient(t, s, "One TPP")
	newTPPClient(t, s, "Two TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, tc := range []struct{ name, body, field string }{
		{"set-profile", `{"profile":"consent=x"}`, "profile: "},
		{"set-profile", `{"profile":"colour=blue"}`, "profile: "},
		{"consents", `{"customerNumber":"` + CustomerKari + `"}`, "tpp: "},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", tc.name, body)
		assert.True(t, strings.HasPrefix(body["error"].(string), tc.field), "%s %s: %v", tc.name, tc.body, body)
	}
}

// TestControlAPILastOnlineSCANotInFuture: set-last-online-sca refuses an
// at after the emulator's own clock, naming at, and keeps nothing (it
// answered 200 and the PSU counted as authenticated until then); at the
// clock itself and before it is taken.
func TestControlAPILastOnlineSCANotInFuture(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	s.Control().SetTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, at := range []string{"2026-03-01T12:00:01Z", "2026-03-02", "2030-01-01T00:00:00Z"} {
		status, body := ctl.call(http.MethodPost, "set-last-online-sca", `{"customerNumber":"`+CustomerKari+`","at":"`+at+`"}`)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", at, body)
		msg, _ := body["error"].(string)
		assert.True(t, strings.HasPrefix(msg, "at: "), "%s: %v", at, body)
		s.mu.Lock()
		_, kept := s.scn.onlineSCA[CustomerKari]
		s.mu.Unlock()
		assert.False(t, kept, "%s was kept", at)
	}
	for _, at := range []string{"2026-03-01T12:00:00Z", "2025-06-01T12:00:00Z"} {
		status, body := ctl.call(http.MethodPost, "set-last-online-sca", `{"customerNumber":"`+CustomerKari+`","at":"`+at+`"}`)
		assert.Equal(t, http.StatusOK, status, "%s: %v", at, body)
	}
}
