package client

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLogRedaction(t *testing.T) {
	t.Parallel()
	const (
		psuID     = "7c1f7c51-5a2b-4a8e-8a3c-1d2e3f4a5b6c"
		deviceID  = "8d2a8d62-6b3c-4b9f-9b4d-2e3f4a5b6c7d"
		corpID    = "SECRET-CORPORATE-4711"
		identity  = "SECRET-NATIONAL-01017012345"
		ip        = "203.0.113.77"
		port      = "SECRET-PORT-61234"
		geo       = "GEO:SECRET-59.91;10.75"
		bodyToken = "SECRET-BODY-CREDITOR-NAME"
		respToken = "SECRET-RESPONSE-BODY"
	)
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, i int) {
		w.Header().Set("PSU-ID", psuID) // a bank echoing an identifier
		if i == 1 {
			w.WriteHeader(503)
		}
		w.Write([]byte(`{"name":"` + respToken + `"}`))
	})
	var logs logBuffer
	c := newTestClient(t, b.URL, WithLogger(debugLogger(&logs)))
	_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Repeatable: true, Body: map[string]string{"creditorName": bodyToken}}, nil,
		WithPSU(PSU{ID: psuID, CorporateID: corpID, IPAddress: ip, IPPort: port, DeviceID: deviceID, GeoLocation: geo}),
		WithPSUIdentity(identity))
	require.NoError(t, err)
	require.EqualValues(t, 2, b.count.Load())

	out := logs.String()
	reqs := b.requests()
	secrets := []string{psuID, deviceID, corpID, identity, ip, port, geo, bodyToken, respToken,
		reqs[0].Header.Get("Signature"), reqs[1].Header.Get("Signature"),
		reqs[0].Header.Get("TPP-Signature-Certificate"),
		base64.StdEncoding.EncodeToString([]byte(bodyToken))}
	for _, s := range secrets {
		require.NotEmpty(t, s)
		assert.NotContains(t, out, s)
		// Signatures are long; a prefix would leak too.
		if len(s) > 40 {
			assert.NotContains(t, out, s[len(s)-40:])
		}
	}

	// What is logged: one record per attempt with the expected fields.
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		records = append(records, m)
	}
	require.Len(t, records, 2)
	for i, m := range records {
		assert.Equal(t, "psd2 request", m["msg"])
		assert.Equal(t, "POST", m["method"])
		assert.Equal(t, "/v1/payments/x", m["path"])
		assert.Equal(t, reqs[0].Header.Get("X-Request-ID"), m["request_id"])
		assert.EqualValues(t, i+1, m["attempt"])
		assert.Contains(t, m, "duration")
		hdr := m["request_header"].(map[string]any)
		for _, h := range []string{"Psu-Id", "Psu-Corporate-Id", "X-Psu-Identity", "Psu-Ip-Address", "Psu-Ip-Port", "Psu-Device-Id", "Psu-Geo-Location", "Signature", "Tpp-Signature-Certificate"} {
			assert.Equal(t, redactedValue, hdr[h], h)
		}
		assert.Equal(t, "application/json", hdr["Content-Type"])
	}
	assert.EqualValues(t, 503, records[0]["status"])
	assert.Equal(t, "WARN", records[0]["level"])
	assert.Equal(t, true, records[0]["retry"])
	assert.EqualValues(t, 200, records[1]["status"])
	assert.Equal(t, "INFO", records[1]["level"])
}

func TestLoggingOffByDefault(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "https://psd2.bank.example")
	assert.Nil(t, c.cfg.logger)
	// Nothing to log to, nothing logged: logAttempt must not fail either.
	c.logAttempt(t.Context(), &http.Request{}, 1, 0, nil, nil, false)
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
}
