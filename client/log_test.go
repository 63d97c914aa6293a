package client

import (
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logRecords splits JSON log output into records.
func logRecords(t *testing.T, out string) []map[string]any {
	t.Helper()
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		records = append(records, m)
	}
	return records
}

func TestLogRedaction(t *testing.T) {
	t.Parallel()
	const (
		psuID      = "7c1f7c51-5a2b-4a8e-8a3c-1d2e3f4a5b6c"
		deviceID   = "8d2a8d62-6b3c-4b9f-9b4d-2e3f4a5b6c7d"
		corpID     = "SECRET-CORPORATE-4711"
		identity   = "SECRET-NATIONAL-01017012345"
		ip         = "203.0.113.77"
		port       = "SECRET-PORT-61234"
		geo        = "GEO:SECRET-59.91;10.75"
		userAgent  = "SECRET-AGENT/1.0 (PSU phone)"
		language   = "SECRET-LANG-nb"
		sessionID  = "SECRET-TPP-SESSION-9f8e7d"
		state      = "SECRETSTATEbase64urlQWERTY"
		fragment   = "SECRET-FRAGMENT"
		custom     = "SECRET-CUSTOM-HEADER"
		accountID  = "enc!!SECRETACCOUNTb64url="
		queryToken = "SECRET-QUERY-2024"
		bodyToken  = "SECRET-BODY-CREDITOR-NAME"
		respToken  = "SECRET-RESPONSE-BODY"
		respEcho   = "SECRET-ECHOED-SESSION"
	)
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, i int) {
		w.Header().Set("PSU-ID", psuID) // a bank echoing identifiers
		w.Header().Set("TPP-Session-ID", respEcho)
		w.Header().Set("Content-Type", "application/json")
		if i == 1 {
			w.WriteHeader(503)
		}
		w.Write([]byte(`{"name":"` + respToken + `"}`))
	})
	var logs logBuffer
	c := newTestClient(t, b.URL, WithLogger(debugLogger(&logs)))
	redirect := "https://tpp.example/cb?state=" + state + "#" + fragment
	_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/accounts/" + accountID + "/transactions",
		Query: url.Values{"dateFrom": {queryToken}}, Repeatable: true, Body: map[string]string{"creditorName": bodyToken}}, nil,
		WithPSU(PSU{ID: psuID, CorporateID: corpID, IPAddress: ip, IPPort: port, DeviceID: deviceID, GeoLocation: geo,
			UserAgent: userAgent, AcceptLanguage: language, HTTPMethod: "GET"}),
		WithPSUIdentity(identity), WithTPPSessionID(sessionID), WithRedirectURI(redirect),
		WithHeader("X-Custom", custom))
	require.NoError(t, err)
	require.EqualValues(t, 2, b.count.Load())

	out := logs.String()
	reqs := b.requests()
	require.Contains(t, reqs[0].URL, queryToken, "the query was sent")
	secrets := []string{psuID, deviceID, corpID, identity, ip, port, geo, userAgent, language, sessionID, state, fragment,
		custom, "SECRETACCOUNT", queryToken, bodyToken, respToken, respEcho,
		reqs[0].Header.Get("Signature"), reqs[1].Header.Get("Signature"),
		reqs[0].Header.Get("TPP-Signature-Certificate"),
		base64.StdEncoding.EncodeToString([]byte(bodyToken))}
	for _, s := range secrets {
		require.NotEmpty(t, s)
		assert.NotContains(t, out, s)
		// Signatures are long; a part would leak too.
		if len(s) > 40 {
			assert.NotContains(t, out, s[len(s)-40:])
		}
	}

	// What is logged: one record per attempt with the expected fields.
	records := logRecords(t, out)
	require.Len(t, records, 2)
	for i, m := range records {
		assert.Equal(t, "psd2 request", m["msg"])
		assert.Equal(t, "POST", m["method"])
		assert.Equal(t, "/v1/accounts/{id}/transactions", m["path"])
		assert.Equal(t, reqs[0].Header.Get("X-Request-ID"), m["request_id"])
		assert.EqualValues(t, i+1, m["attempt"])
		assert.Contains(t, m, "duration")
		hdr := m["request_header"].(map[string]any)
		for _, h := range []string{"Psu-Id", "Psu-Corporate-Id", "X-Psu-Identity", "Psu-Ip-Address", "Psu-Ip-Port",
			"Psu-Device-Id", "Psu-Geo-Location", "Psu-User-Agent", "Psu-Accept-Language", "Tpp-Session-Id",
			"Signature", "Tpp-Signature-Certificate", "X-Custom"} {
			assert.Equal(t, redactedValue, hdr[h], h)
		}
		assert.Equal(t, "https://tpp.example/cb?[redacted]#[redacted]", hdr["Tpp-Redirect-Uri"])
		assert.Equal(t, "application/json", hdr["Content-Type"])
		assert.Equal(t, "GET", hdr["Psu-Http-Method"])
		assert.Equal(t, reqs[0].Header.Get("X-Request-ID"), hdr["X-Request-Id"])
		resp := m["response_header"].(map[string]any)
		assert.Equal(t, redactedValue, resp["Psu-Id"])
		assert.Equal(t, redactedValue, resp["Tpp-Session-Id"])
		assert.Equal(t, "application/json", resp["Content-Type"])
	}
	assert.EqualValues(t, 503, records[0]["status"])
	assert.Equal(t, "WARN", records[0]["level"])
	assert.Equal(t, true, records[0]["retry"])
	assert.EqualValues(t, 200, records[1]["status"])
	assert.Equal(t, "INFO", records[1]["level"])
}

// TestLogTransportErrorRedacted: net/http puts the full URL (ids, query)
// into its error; the logged error shows the templated path instead.
func TestLogTransportErrorRedacted(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	var logs logBuffer
	c := newTestClient(t, "http://"+addr+"/api", WithLogger(debugLogger(&logs)), WithRetryPolicy(RetryPolicy{}))
	_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts/enc!!SECRETACCOUNT=/balances",
		Query: url.Values{"q": {"SECRET-QUERY"}}}, nil)
	require.Error(t, err)
	out := logs.String()
	assert.NotContains(t, out, "SECRETACCOUNT")
	assert.NotContains(t, out, "SECRET-QUERY")
	records := logRecords(t, out)
	require.Len(t, records, 1)
	assert.Equal(t, "/v1/accounts/{id}/balances", records[0]["path"])
	assert.Contains(t, records[0]["error"], `Get "/v1/accounts/{id}/balances"`)
	assert.Contains(t, records[0]["error"], "connect", "the cause is kept")
}

func TestLoggingOffByDefault(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "https://psd2.bank.example")
	assert.Nil(t, c.cfg.logger)
	// Nothing to log to, nothing logged: logAttempt must not fail either.
	c.logAttempt(t.Context(), &http.Request{}, 1, 0, nil, nil, false)
}

// TestLogAttemptWithoutURL: a request without a URL logs an empty path.
func TestLogAttemptWithoutURL(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	c := newTestClient(t, "https://psd2.bank.example", WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	c.logAttempt(t.Context(), &http.Request{Method: "GET", Header: http.Header{}}, 1, 0, nil, nil, false)
	records := logRecords(t, logs.String())
	require.Len(t, records, 1)
	assert.Equal(t, "", records[0]["path"])
	assert.NotContains(t, records[0], "request_header", "headers only at Debug")
}

func TestRedactedList(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"PSU-ID", "PSU-Corporate-ID", "X-PSU-IDENTITY", "PSU-IP-Address", "PSU-IP-Port",
		"PSU-Device-ID", "PSU-Geo-Location", "PSU-User-Agent", "PSU-Accept", "PSU-Accept-Language",
		"TPP-Session-ID", "Signature", "TPP-Signature-Certificate", "Authorization", "Cookie", "Set-Cookie",
		"X-Something-New", "Location"} {
		assert.Equal(t, redactedValue, headerLogValue(h, []string{"v"}), h)
	}
	for _, h := range []string{"Date", "X-Request-ID", "Digest", "Content-Type", "X-Accept-Fix", "PSU-Context",
		"PSU-HTTP-Method", "TPP-Redirect-Preferred", "X-PSU-AuthMethod-Preferred", "Retry-After"} {
		assert.Equal(t, "v", headerLogValue(h, []string{"v"}), h)
	}
	assert.Equal(t, "a, b", headerLogValue("Accept", []string{"a", "b"}))
	assert.Equal(t, "https://tpp.example/cb, [redacted]",
		headerLogValue("TPP-Redirect-URI", []string{"https://tpp.example/cb", "not a URL"}))
}
