package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answerDoc reads a platform answer document as a JSON object.
func answerDoc(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "platform", file))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

// sepaRequest is a SEPA payment initiation as the SDK sends it, with
// nothing the Berlin Group file refuses but its x-accept-fix and
// TPP-Session-ID headers.
func sepaRequest() (http.Header, map[string]any) {
	h := http.Header{}
	h.Set("X-Request-ID", "2f6e0c39-3d1c-4a63-8e1b-5f8a2f7f2d10")
	h.Set("Date", "Tue, 03 Mar 2026 09:00:00 GMT")
	h.Set("Content-Type", "application/json")
	h.Set("Digest", "SHA-256=abc=")
	h.Set("Signature", `keyId="SN=1,CA=CN=Test",algorithm="rsa-sha256",headers="date x-request-id",signature="c2ln"`)
	h.Set("TPP-Signature-Certificate", "TUlJQw==")
	h.Set("PSU-IP-Address", "192.0.2.10")
	h.Set("TPP-Redirect-URI", "https://tpp.example/callback")
	body := map[string]any{
		"instructedAmount": map[string]any{"amount": "25.00", "currency": "EUR"},
		"creditorName":     "Muster GmbH",
		"creditorAccount":  map[string]any{"iban": "DE89370400440532013000", "currency": "EUR"},
		"debtorAccount":    map[string]any{"iban": "NO8495312776066", "currency": "NOK"},
	}
	return h, body
}

// TestValidatorFinds checks that the validator reports what the Berlin
// Group file refuses, at the right place, and that no deviation excuses
// it: each case breaks one thing of a valid request or answer.
func TestValidatorFinds(t *testing.T) {
	t.Parallel()
	spec, err := loadSpec()
	require.NoError(t, err)
	answer := func(mutate func(m map[string]any)) exchange {
		m := answerDoc(t, "payment-sepa-create-201.json")
		for _, l := range m["_links"].(map[string]any) {
			delete(l.(map[string]any), "verbs")
		}
		mutate(m)
		h, body := sepaRequest()
		req, err := json.Marshal(body)
		require.NoError(t, err)
		data, err := json.Marshal(m)
		require.NoError(t, err)
		rh := http.Header{}
		rh.Set("Content-Type", "application/json")
		rh.Set("X-Request-ID", h.Get("X-Request-ID"))
		return exchange{method: http.MethodPost, path: sepaPath, reqHeader: h, reqBody: req, status: 201, respHeader: rh, respBody: data}
	}
	request := func(mutate func(h http.Header, body map[string]any), query string) exchange {
		x := answer(func(map[string]any) {})
		h, body := sepaRequest()
		mutate(h, body)
		data, err := json.Marshal(body)
		require.NoError(t, err)
		x.reqHeader, x.reqBody, x.rawQuery = h, data, query
		return x
	}
	tests := []struct {
		name string
		x    exchange
		loc  string
		msg  string
	}{
		{"valid", answer(func(map[string]any) {}), "", ""},
		{"answer without paymentId", answer(func(m map[string]any) { delete(m, "paymentId") }),
			"response body /paymentId", "required member missing"},
		{"unknown transactionStatus", answer(func(m map[string]any) { m["transactionStatus"] = "DONE" }),
			"response body /transactionStatus", "allowed values"},
		{"misspelt member", answer(func(m map[string]any) { m["transactionFee"] = true }),
			"response body /transactionFee", "member not defined"},
		{"amount as a number", answer(func(m map[string]any) { m["transactionFees"].(map[string]any)["amount"] = 2.5 }),
			"response body /transactionFees/amount", "must be a string"},
		{"link with a member besides href", answer(func(m map[string]any) {
			m["_links"].(map[string]any)["self"].(map[string]any)["verb"] = "GET"
		}), "response body /_links/self/verb", "member not defined"},
		{"undocumented status", func() exchange {
			x := answer(func(map[string]any) {})
			x.status = 507
			return x
		}(), "response status", "status not defined"},
		{"answer without X-Request-ID", func() exchange {
			x := answer(func(map[string]any) {})
			x.respHeader.Del("X-Request-ID")
			return x
		}(), "response header x-request-id", "missing"},
		{"request without X-Request-ID", request(func(h http.Header, _ map[string]any) { h.Del("X-Request-ID") }, ""),
			"request header x-request-id", "required parameter missing"},
		{"X-Request-ID not a UUID", request(func(h http.Header, _ map[string]any) { h.Set("X-Request-ID", "42") }, ""),
			"request header x-request-id", "uuid"},
		{"PSU-IP-Address not an address", request(func(h http.Header, _ map[string]any) { h.Set("PSU-IP-Address", "localhost") }, ""),
			"request header psu-ip-address", "ipv4"},
		{"header Berlin Group does not define", request(func(h http.Header, _ map[string]any) { h.Set("X-Trace", "1") }, ""),
			"request header x-trace", "not defined"},
		{"unknown query parameter", request(func(http.Header, map[string]any) {}, "dryRun=true"),
			"request query dryRun", "not defined"},
		{"payment without creditorAccount", request(func(_ http.Header, b map[string]any) { delete(b, "creditorAccount") }, ""),
			"request body /creditorAccount", "required member missing"},
		{"BG address name misspelt", request(func(_ http.Header, b map[string]any) {
			b["creditorAddress"] = map[string]any{"country": "DE", "streetname": "Hauptstrasse"}
		}, ""), "request body /creditorAddress/streetname", "member not defined"},
		{"product unknown to both", func() exchange {
			x := request(func(http.Header, map[string]any) {}, "")
			x.path = "/v1/payments/sepa-credit-transferz"
			return x
		}(), "request path payment-product", "allowed values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			findings, err := spec.check(t.Context(), tt.x)
			require.NoError(t, err)
			var left []finding
			for _, f := range findings {
				if f.loc == "request header x-accept-fix" || f.loc == "request header tpp-session-id" {
					continue // the SDK's headers, not set here
				}
				if _, ok := matchEntry(deviations, f); ok {
					t.Errorf("excused by a deviation: %s", f)
				}
				left = append(left, f)
			}
			if tt.loc == "" {
				assert.Empty(t, left)
				return
			}
			require.Len(t, left, 1, "findings: %v", left)
			assert.Equal(t, tt.loc, left[0].loc)
			assert.Contains(t, left[0].msg, tt.msg)
		})
	}
}

// TestDeviationsMatchNarrowly checks that an entry excuses its own
// finding and not its neighbours: another operation, another member, or
// another value.
func TestDeviationsMatchNarrowly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    finding
		want bool
	}{
		{finding{op: "initiatePayment", loc: "request path payment-product", value: "norwegian-domestic-credit-transfers"}, true},
		{finding{op: "initiatePayment", loc: "request path payment-product", value: "sepa-credit-transferz"}, false},
		{finding{op: "getPaymentInitiationStatus", loc: "request path payment-product", value: "norwegian-domestic-credit-transfers"}, true},
		{finding{op: "initiatePayment", loc: "request body /creditorAddress/street"}, true},
		{finding{op: "initiatePayment", loc: "request body /creditorAddress/streetname"}, false},
		{finding{op: "initiatePayment", loc: "request body /payments/0/creditorAddress/street"}, false},
		{finding{op: "getAccountList", loc: "request header consent-id", msg: "required parameter missing"}, true},
		{finding{op: "initiatePayment", loc: "request header consent-id", msg: "required parameter missing"}, false},
		{finding{op: "getAccountList", loc: "response body /accounts/3/_links/balances/verbs"}, true},
		{finding{op: "getAccountList", loc: "response body /accounts/3/_links/balances/verb"}, false},
		{finding{op: "getAccountList", loc: "response body /accounts/3/balances/0/verbs"}, false},
		{finding{op: "getTransactionList", loc: "request query limit", value: "10"}, true},
		{finding{op: "getTransactionList", loc: "request query size", value: "10"}, false},
		{finding{op: "startPaymentAuthorisation", loc: "response body /authorisationId", msg: "required member missing"}, true},
		{finding{op: "startPaymentAuthorisation", loc: "response body /authorisationId", msg: "value must be a string"}, false},
	}
	for _, tt := range tests {
		_, ok := matchEntry(deviations, tt.f)
		assert.Equal(t, tt.want, ok, "%s", tt.f)
	}
}

// TestLedgerReportsUnused checks the rule that keeps the tables from
// rotting: an entry, per operation, that excused nothing is reported.
func TestLedgerReportsUnused(t *testing.T) {
	t.Parallel()
	table := []entry{
		{Where: []string{"a", "b"}, What: "request header x"},
		{Where: []string{"c"}, What: "request header y"},
	}
	led := newLedger()
	led.use(led.devUsed, 0, "a")
	assert.Equal(t, []string{"1 (request header x at b)", "2 (request header y at c)"}, led.unused(table, led.devUsed))
	led.use(led.devUsed, 0, "b")
	led.use(led.devUsed, 1, "c")
	assert.Empty(t, led.unused(table, led.devUsed))
	assert.Equal(t, []string{"1 (request header x at a)", "1 (request header x at b)", "2 (request header y at c)"},
		led.unused(table, led.defUsed), "the known defects are counted apart")
}

// TestLedgerSettles checks what becomes of a finding: a deviation
// excuses it, a known defect skips the subtest naming the defect, and
// anything else fails it.
func TestLedgerSettles(t *testing.T) {
	t.Parallel()
	devs := []entry{{Where: []string{"getBalances"}, What: "response body /_links"}}
	defects := []entry{{Where: []string{"getBalances"}, What: "response body /balances/*/balanceType",
		Why: "an example defect: balanceType authorised, expected a Berlin Group type", Section: "example/file.go"}}
	excused := finding{op: "getBalances", loc: "response body /_links"}
	defect := finding{op: "getBalances", loc: "response body /balances/0/balanceType", msg: "allowed values"}
	other := finding{op: "getBalances", loc: "response body /account/currency"}
	run := func(findings ...finding) (skipped bool, led *ledger) {
		led = newLedgerOf(devs, defects)
		t.Run(fmt.Sprint(len(findings)), func(t *testing.T) {
			t.Cleanup(func() { skipped = t.Skipped() })
			led.settle(t, findings)
		})
		return skipped, led
	}
	skipped, led := run(excused)
	assert.False(t, skipped)
	assert.Equal(t, []string{"1 (response body /balances/*/balanceType at getBalances)"}, led.unused(defects, led.defUsed))
	skipped, led = run(excused, defect)
	assert.True(t, skipped, "a known defect skips")
	assert.Empty(t, led.unused(devs, led.devUsed))
	assert.Empty(t, led.unused(defects, led.defUsed))
	unexcused, met := newLedgerOf(devs, defects).sort([]finding{excused, other, defect})
	assert.Equal(t, []finding{other}, unexcused, "what settle fails the subtest on")
	require.Len(t, met, 1)
	assert.Contains(t, met[0], "example/file.go")
}

// TestExpand checks the {a,b} alternatives of a place.
func TestExpand(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"x"}, expand("x"))
	assert.Equal(t, []string{"/a/c", "/b/c"}, expand("/{a,b}/c"))
	assert.Equal(t, []string{"/_links", "/x/_links"}, expand("{,/x}/_links"))
	assert.Equal(t, []string{"/a/1", "/a/2", "/b/1", "/b/2"}, expand("/{a,b}/{1,2}"))
}

// TestDeviationsDocumented checks that doc.go and docs/interface.md
// section 11 list as many deviations as the table, under the same numbers.
func TestDeviationsDocumented(t *testing.T) {
	t.Parallel()
	n := len(deviations)
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	for i := 1; i <= n+1; i++ {
		listed := regexp.MustCompile(fmt.Sprintf(`(?m)^//\t11\.%d +\S`, i)).Match(doc)
		assert.Equal(t, i <= n, listed, "doc.go, deviation 11.%d", i)
	}
	iface, err := os.ReadFile(filepath.Join("..", "docs", "interface.md"))
	require.NoError(t, err)
	_, section, found := strings.Cut(string(iface), "\n## 11. Deviations from Berlin Group 1.3.9\n")
	require.True(t, found, "docs/interface.md has no section 11 on the deviations")
	section, _, _ = strings.Cut(section, "\n## ")
	assert.Contains(t, section, fmt.Sprintf("Items are numbered 11.1 to 11.%d.", n))
	items := regexp.MustCompile(`(?m)^(\d+)\. `).FindAllStringSubmatch(section, -1)
	require.Len(t, items, n, "numbered items of docs/interface.md section 11")
	for i, m := range items {
		assert.Equal(t, strconv.Itoa(i+1), m[1])
	}
}
