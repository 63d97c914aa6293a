package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

// FuzzRequest sends correctly signed requests with one header or the body
// replaced by fuzz input straight to the handler. The endpoint answers 400
// even for a fully valid request (no TPP-Session-ID), so every answer must
// be a 4xx, and nothing may panic.
func FuzzRequest(f *testing.F) {
	key, err := testKey()
	require.NoError(f, err)
	s := newServer(WithTPPKey(key))
	creds, err := s.NewTPP("Fuzz TPP")
	require.NoError(f, err)
	signer, err := signing.NewSigner(creds.Key, signing.KeyID(creds.Certificate))
	require.NoError(f, err)
	h := s.Handler()

	f.Add(uint8(0), `keyId="x",algorithm="rsa-sha256",headers="date",signature="AAAA"`, []byte(`{}`))
	f.Add(uint8(0), `=?utf-8?B?a2V5SWQ9IngiLGFsZ29yaXRobT0icnNhLXNoYTI1NiI=?=`, []byte(nil))
	f.Add(uint8(0), `=?iso-8859-1?Q?keyId=3D=22=F8=22?=`, []byte(nil))
	f.Add(uint8(1), "Mon, 02 Jan 2006 15:04:05 GMT", []byte(nil))
	f.Add(uint8(2), "SHA-256=", []byte(`{"a":1}`))
	f.Add(uint8(2), "SHA-512=abc, SHA-256=def", []byte(`{"a":1}`))
	f.Add(uint8(3), "not-a-uuid", []byte(nil))
	f.Add(uint8(4), "MIIB", []byte(nil))
	f.Add(uint8(5), "application/xml", []byte(`<a/>`))
	f.Add(uint8(6), "", []byte(`{"remittance":"😀"}`))
	f.Add(uint8(6), "", []byte(`{"x":"\ud83d\ude00"}`))
	f.Add(uint8(6), "", []byte("\xff\xfe"))
	f.Add(uint8(7), "", []byte(`{"a":[1,2,{"b":null}]}`))

	headers := []string{"Signature", "Date", "Digest", "X-Request-ID", "TPP-Signature-Certificate", "Content-Type"}
	f.Fuzz(func(t *testing.T, field uint8, value string, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "https://127.0.0.1/api/v1/bank-offered-consents", bytes.NewReader(body))
		req.Header.Set("X-Request-ID", uuid.NewString())
		req.Header.Set("Date", s.now().UTC().Format(http.TimeFormat))
		req.Header.Set("TPP-Redirect-URI", "https://tpp.example/cb")
		req.Header.Set("TPP-Signature-Certificate", encodeCert(creds.Certificate.Raw))
		if len(body) > 0 {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Digest", signing.Digest(body))
		}
		if err := signer.Sign(req); err != nil {
			t.Fatal(err)
		}
		if int(field) < len(headers) {
			req.Header.Set(headers[field], value)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code < 400 || rec.Code >= 500 {
			t.Fatalf("status %d for field %d value %q body %q: %s", rec.Code, field, value, body, rec.Body.String())
		}
	})
}

// FuzzControlAPI sends fuzz arguments to every control of the control
// API, as a test suite in another language might: nothing may panic,
// every answer is JSON, and none is a 5xx but 503 for a cancelled call.
func FuzzControlAPI(f *testing.F) {
	key, err := testKey()
	require.NoError(f, err)
	s := NewServer(WithTPPKey(key))
	f.Cleanup(s.Close)
	_, err = s.NewTPP("Fuzz TPP")
	require.NoError(f, err)
	s.Control().Freeze()
	h := s.ControlHandler("tok")
	for i, rt := range controlRoutes {
		f.Add(uint8(i), []byte(rt.args))
	}
	f.Add(uint8(0), []byte(`{"days":1e308,"by":"-2562047h"}`))
	f.Add(uint8(0), []byte(`{"customers":[{"accounts":[{"transactions":[{},{},{"amount":"1e400"}]}]}]}`))
	f.Add(uint8(0), []byte(`{"n":9223372036854775807,"count":-1,"status":-1}`))
	f.Add(uint8(0), []byte(`{"customers":[{"accounts":[{"transactions":[{"bookingDate":"2026-03-02","valueDate":"2026-03-02T10:00:00Z"}]}],"cardAccounts":[{"transactions":[{"transactionDate":"2026-02-30"}]}]}]}`))
	f.Add(uint8(0), []byte(`{"transaction":{"bookingDate":20260302,"amount":-1},"settlement":{"lateDays":1e3,"fee":{"amount":"1e400"}}}`))
	f.Add(uint8(0), []byte(`{"a":{"b":{"c":[[[[{"d":"\ud800"}]]]]}}}`))
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		rt := &controlRoutes[int(route)%len(controlRoutes)]
		req := httptest.NewRequest(http.MethodPost, "/controls/"+ControlName(rt.method), bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %q: %d %s", rt.method, body, rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %q: not JSON: %s", rt.method, body, rec.Body)
		}
		s.Control().EndOutages()
	})
}

// FuzzMockData posts fuzz bodies to every mock-data operation of the
// bank (the sandbox resources a TPP seeds its test data with), as a
// TPP's test suite in any language might: nothing may panic, no answer
// is a 5xx, and every answer with a body is JSON.
func FuzzMockData(f *testing.F) {
	s := startServer(f)
	c := newTPPClient(f, s, "Fuzz mock data")
	created := func(path, body string, v any) {
		r := c.do(http.MethodPost, path, []byte(body))
		require.Equal(f, http.StatusCreated, r.status, string(r.body))
		require.NoError(f, json.Unmarshal(r.body, v))
	}
	created("/v1/sandbox/customers", `{"customerNumber":"912345688","customerType":"CORPORATE","customerName":"Fuzz AS"}`, &struct{}{})
	var a accountJSON
	created("/v1/sandbox/accounts", `{"customerNumber":"912345688"}`, &a)
	var k cardJSON
	created("/v1/sandbox/card-accounts", `{"customerNumber":"`+CustomerKari+`"}`, &k)
	var ag agreementJSON
	created("/v1/sandbox/agreements", `{"owner":"912345688","name":"Fuzz","engagements":[{"account":{"iban":"`+a.IBAN+`"},"roles":["VIEW"]}]}`, &ag)
	paths := []string{
		"/v1/sandbox/customers",
		"/v1/sandbox/accounts",
		"/v1/sandbox/card-accounts",
		"/v1/sandbox/accounts/" + a.ResourceID + "/transactions",
		"/v1/sandbox/card-accounts/" + strings.ReplaceAll(k.ResourceID, "!", "%21") + "/transactions",
		"/v1/sandbox/agreements",
		"/v1/sandbox/agreements/" + ag.ID + "/engagements",
	}

	f.Add(uint8(0), []byte(`{"customerNumber":"01017054321","customerType":"PRIVATE","customerName":"Fuzz Kunde"}`))
	f.Add(uint8(1), []byte(`{"customerNumber":"912345688","product":"x","cashAccountType":"CACC"}`))
	f.Add(uint8(2), []byte(`{"customerNumber":"`+CustomerKari+`","product":"\u00f8"}`))
	f.Add(uint8(3), []byte(`[{"transactionAmount":{"amount":"-1.00","currency":"NOK"},"bookingDate":"2026-12-01","creditorAccount":{"bban":"86011117947"}}]`))
	f.Add(uint8(3), []byte(`[{"transactionAmount":{"amount":"1e400"}},{}]`))
	f.Add(uint8(4), []byte(`[{"transactionAmount":{"amount":"12.50"},"transactionDetails":"kiosk"}]`))
	f.Add(uint8(5), []byte(`{"owner":"912345688","name":"A","engagements":[{"account":{"iban":"`+a.IBAN+`"},"roles":["VIEW",""]}]}`))
	f.Add(uint8(6), []byte(`[{"account":{"iban":"`+a.IBAN+`"},"roles":["PAY"]}]`))
	f.Add(uint8(3), []byte(strings.Repeat("[", 40)))
	f.Add(uint8(0), []byte("\xff\xfe{}"))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		tc := &tppClient{t: t, s: s, creds: c.creds, signer: c.signer, hc: c.hc}
		r := tc.do(http.MethodPost, paths[int(which)%len(paths)], body)
		if r.status >= 500 {
			t.Fatalf("status %d for %q: %s", r.status, body, r.body)
		}
		if len(r.body) > 0 && !json.Valid(r.body) {
			t.Fatalf("status %d for %q: not JSON: %q", r.status, body, r.body)
		}
	})
}
