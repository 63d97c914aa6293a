package emulator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// TestPISShapesMatchPlatform compares the structure of the emulator's
// payment and signing basket answers with the platform's answer
// documents of testdata/platform (member names, nesting, JSON types).
func TestPISShapesMatchPlatform(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "PIS shapes")
	ndct := c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, external, "42.00"), c.payHeaders()...)
	require.Equal(t, http.StatusCreated, ndct.status, string(ndct.body))
	var got created
	require.NoError(t, jsonUnmarshal(ndct.body, &got))
	self := got.Links["self"].Href
	sepa := c.do(http.MethodPost, "/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk))), c.payHeaders()...)
	require.Equal(t, http.StatusCreated, sepa.status, string(sepa.body))
	start := c.do(http.MethodPost, got.Links["startAuthorisation"].Href, nil, c.payHeaders()...)
	require.Equal(t, http.StatusCreated, start.status, string(start.body))

	ids, _ := c.newPayments(2)
	bc := c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids...), c.basketHeaders()...)
	require.Equal(t, http.StatusCreated, bc.status, string(bc.body))
	var b struct {
		BasketID string          `json:"basketId"`
		Links    map[string]link `json:"_links"`
	}
	require.NoError(t, jsonUnmarshal(bc.body, &b))
	approve(t, s, b.Links["scaRedirect"].Href, CustomerKari)
	bg := c.get("/v1/signing-baskets/" + b.BasketID)
	require.Equal(t, http.StatusOK, bg.status, string(bg.body))

	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	details := c.get(self)
	require.Equal(t, http.StatusOK, details.status, string(details.body))
	status := c.get(self + "/status")
	require.Equal(t, http.StatusOK, status.status, string(status.body))

	for _, tt := range []struct {
		fixture     string
		body        []byte
		beyond      []string
		beyondLinks []string
	}{
		{"payment-ndct-create-201.json", ndct.body, nil, nil},
		{"payment-sepa-create-201.json", sepa.body, nil, nil},
		{"payment-start-authorisation-201.json", start.body, nil, nil},
		{"payment-status-actc.json", status.body, nil, nil},
		{"signing-basket-get.json", bg.body, nil, nil},
		// The document's link set is an assumption (no recording of
		// this call exists); like a payment's (docs/interface.md section
		// 10), the basket's links add scaRedirect when SCA is needed.
		{"signing-basket-create-201.json", bc.body, []string{"_links.scaRedirect.href:string", "_links.scaRedirect.verbs:array", "_links.scaRedirect.verbs[]:string", "_links.scaRedirect:object"},
			[]string{`_links.scaRedirect ["GET"] https://{site}/tap/{nnnn}/?route_secesb_id=1&flow=psd2&state={id}&context=PRIVATE`}},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			want := append(shape(t, fixture(t, tt.fixture)), tt.beyond...)
			slices.Sort(want)
			assert.Equal(t, want, shape(t, tt.body), string(tt.body))
			assertLinkStyle(t, tt.body)
			assertAsRecorded(t, tt.fixture, tt.body, tt.beyondLinks...)
		})
	}
	t.Run("payment-ndct-details.json", func(t *testing.T) {
		// The details echo the request, which had no
		// requestedExecutionDate.
		want := slices.DeleteFunc(shape(t, fixture(t, "payment-ndct-details.json")), func(s string) bool { return s == "requestedExecutionDate:string" })
		assert.Equal(t, want, shape(t, details.body), string(details.body))
		assertLinkStyle(t, details.body)
		assertAsRecorded(t, "payment-ndct-details.json", details.body)
	})
	t.Run("payment-status-accp-funds-unavailable.json", func(t *testing.T) {
		// 150.00 NOK from an account holding 100.00: the batch leaves
		// it ACCP with fundsAvailable false.
		p := c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, ndctBody(kariSpar, external, "150.00"), c.payHeaders()...)
		require.Equal(t, http.StatusCreated, p.status, string(p.body))
		var got created
		require.NoError(t, jsonUnmarshal(p.body, &got))
		approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
		s.Control().RunBatch()
		r := c.get(got.Links["status"].Href)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.Equal(t, shape(t, fixture(t, "payment-status-accp-funds-unavailable.json")), shape(t, r.body), string(r.body))
		assertLinkStyle(t, r.body)
		assertAsRecorded(t, "payment-status-accp-funds-unavailable.json", r.body)
	})
	t.Run("error-400-format-error.json", func(t *testing.T) {
		r := c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, "91026527437", "42.00"), c.payHeaders()...)
		require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
		assert.Equal(t, shape(t, fixture(t, "error-400-format-error.json")), shape(t, r.body), string(r.body))
		assertAsRecorded(t, "error-400-format-error.json", r.body)
	})
	t.Run("error-400-kid-invalid.json", func(t *testing.T) {
		r := c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, external, "42.00", func(b body) {
			del("remittanceInformationUnstructured")(b)
			setPath(b, "remittanceInformationStructured", map[string]any{"reference": "1234567890", "referenceType": "KID"})
		}), c.payHeaders()...)
		require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
		assert.Equal(t, shape(t, fixture(t, "error-400-kid-invalid.json")), shape(t, r.body), string(r.body))
		assertAsRecorded(t, "error-400-kid-invalid.json", r.body)
		code, at := r.problem(t)
		assert.Equal(t, []string{"KID_INVALID", "remittanceInformationStructured.reference"}, []string{code, at})
	})
}

// TestAISShapesMatchPlatformMore compares what TestShapesMatchPlatform
// does not: the last transactions page and the answer after the PSU
// revoked the consent.
func TestAISShapesMatchPlatformMore(t *testing.T) {
	t.Parallel()
	s, c, ids, psu := aisSetup(t)
	day := rules.Today(s.now())
	first := c.get("/v1/accounts/"+ids[0]+"/transactions?bookingStatus=both&limit=3&dateFrom="+
		day.AddDate(0, 0, -150).Format(time.DateOnly)+"&dateTo="+day.Format(time.DateOnly), psu...)
	require.Equal(t, http.StatusOK, first.status, string(first.body))
	p := decodeTxPage(t, first)
	next, ok := p.Transactions.Links["next"]
	require.True(t, ok, string(first.body))
	last := c.get(next.Href, psu...)
	for {
		p := decodeTxPage(t, last)
		l, ok := p.Transactions.Links["next"]
		if !ok {
			break
		}
		last = c.get(l.Href, psu...)
	}
	require.Equal(t, http.StatusOK, last.status, string(last.body))
	assert.Equal(t, shape(t, fixture(t, "transactions-page2.json")), shape(t, last.body), string(last.body))
	assertLinkStyle(t, last.body)
	assertAsRecorded(t, "transactions-page2.json", last.body)

	s.Control().RevokeConsent(CustomerKari)
	r := c.get("/v1/accounts", psu...)
	require.Equal(t, http.StatusForbidden, r.status, string(r.body))
	assert.Equal(t, shape(t, fixture(t, "error-403-consent-unknown.json")), shape(t, r.body), string(r.body))
	assertAsRecorded(t, "error-403-consent-unknown.json", r.body)
}

// assertLinkStyle checks every _links member of an answer as the
// platform writes them (testdata/platform): each link is exactly
// {href, verbs} with at least one verb; hrefs are relative, start at /v1/
// and have no /api prefix, but for scaRedirect, which is an absolute
// https URL of the bank's authorisation site.
func assertLinkStyle(t *testing.T, body []byte) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v))
	n := 0
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k != "_links" {
					walk(e)
					continue
				}
				links, ok := e.(map[string]any)
				require.True(t, ok, "_links is an object: %s", body)
				for name, l := range links {
					n++
					m, ok := l.(map[string]any)
					require.True(t, ok, "link %s is an object", name)
					assert.ElementsMatch(t, []string{"href", "verbs"}, slices.Collect(maps.Keys(m)), "link %s", name)
					verbs, _ := m["verbs"].([]any)
					assert.NotEmpty(t, verbs, "link %s has verbs", name)
					href, _ := m["href"].(string)
					if name == "scaRedirect" {
						u, err := url.Parse(href)
						require.NoError(t, err)
						assert.Equal(t, "https", u.Scheme, href)
						assert.NotEmpty(t, u.Query().Get("state"), href)
						continue
					}
					assert.True(t, strings.HasPrefix(href, "/v1/"), "link %s is relative without /api: %s", name, href)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	assert.Positive(t, n, "the answer has links")
}

// Patterns linkSet writes over: resource ids, dates, non-zero offsets and
// the authorisation site's host, /tap or /tap-sandbox (production and
// sandbox, docs/interface.md section 10) and state.
var (
	linkIDPattern     = regexp.MustCompile(`enc!![A-Za-z0-9_=-]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	linkDatePattern   = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)
	linkOffsetPattern = regexp.MustCompile(`offset=[1-9]\d*`)
	linkSitePattern   = regexp.MustCompile(`^https://[^/]+/tap(-sandbox)?/\d{4}/`)
)

// linkSet lists every link of an answer as "where.name [VERBS] href",
// with ids, dates, non-zero offsets and the authorisation site's host
// written as placeholders, so that an answer and a platform document of
// the same call list the same links with the same verbs and the same
// href form (query members and their order included).
func linkSet(t testing.TB, body []byte) []string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v), string(body))
	set := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k != "_links" {
					walk(strings.TrimPrefix(prefix+"."+k, "."), e)
					continue
				}
				links, _ := e.(map[string]any)
				for name, l := range links {
					m, _ := l.(map[string]any)
					href, _ := m["href"].(string)
					href = linkSitePattern.ReplaceAllString(href, "https://{site}/tap/{nnnn}/")
					href = linkIDPattern.ReplaceAllString(href, "{id}")
					href = linkDatePattern.ReplaceAllString(href, "{date}")
					href = linkOffsetPattern.ReplaceAllString(href, "offset={n}")
					verbs, _ := json.Marshal(m["verbs"])
					set[strings.TrimPrefix(fmt.Sprintf("%s._links.%s %s %s", prefix, name, verbs, href), ".")] = true
				}
			}
		case []any:
			for _, e := range x {
				walk(prefix+"[]", e)
			}
		}
	}
	walk("", v)
	return slices.Sorted(maps.Keys(set))
}

// enumValues lists the values of the members that name a kind rather
// than carry data (statuses, types, error codes and paths, flags) as
// "where:value", sorted.
func enumValues(t testing.TB, body []byte) []string {
	t.Helper()
	kinds := map[string]bool{
		"cashAccountType": true, "balanceType": true, "transactionStatus": true, "scaStatus": true,
		"category": true, "code": true, "path": true, "customerType": true,
		"text": true, "transactionFeeIndicator": true, "fundsAvailable": true, "invoiced": true,
	}
	var v any
	require.NoError(t, json.Unmarshal(body, &v), string(body))
	set := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := strings.TrimPrefix(prefix+"."+k, ".")
				if kinds[k] {
					set[fmt.Sprintf("%s:%v", p, e)] = true
					continue
				}
				walk(p, e)
			}
		case []any:
			for _, e := range x {
				walk(prefix+"[]", e)
			}
		}
	}
	walk("", v)
	return slices.Sorted(maps.Keys(set))
}

// assertAsRecorded compares an answer with a platform document beyond
// its shape: the links with their verbs and href forms, and the values
// of enumValues's members. beyondLinks are linkSet entries the answer
// has beyond the document.
func assertAsRecorded(t *testing.T, doc string, body []byte, beyondLinks ...string) {
	t.Helper()
	want := fixture(t, doc)
	got := slices.DeleteFunc(linkSet(t, body), func(l string) bool { return slices.Contains(beyondLinks, l) })
	assert.Equal(t, linkSet(t, want), got, "links of %s\n%s", doc, body)
	assert.Equal(t, enumValues(t, want), enumValues(t, body), "values of %s\n%s", doc, body)
	assert.Equal(t, idForms(t, want), idForms(t, body), "id forms of %s\n%s", doc, body)
}

// idMembers are the members that hold a resource id or a list of them.
var idMembers = map[string]bool{
	"id": true, "resourceId": true, "customerId": true, "paymentId": true, "basketId": true,
	"transactionId": true, "cardTransactionId": true, "relatedAccount": true,
	"accounts": true, "cardAccounts": true, "engagements": true, "payments": true,
}

// idForms lists the form of every id an answer carries as "where:form":
// enc!! ids by their byte count and padding ("enc32=", "enc48"), UUIDs
// ("uuid"), digit strings by their length ("digits16"), sorted. linkSet
// writes every id of an href as {id}; this compares the ids themselves,
// so that an id of another form than the platform's shows.
func idForms(t testing.TB, body []byte) []string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v), string(body))
	form := func(v any) string {
		s, ok := v.(string)
		switch {
		case !ok:
			return fmt.Sprintf("%T", v)
		case strings.HasPrefix(s, "enc!!"):
			b := strings.TrimPrefix(s, "enc!!")
			n, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(b, "="))
			if err != nil {
				return "enc?"
			}
			if strings.HasSuffix(b, "=") {
				return fmt.Sprintf("enc%d=", len(n))
			}
			return fmt.Sprintf("enc%d", len(n))
		case uuid.Validate(s) == nil && len(s) == 36:
			return "uuid"
		case s != "" && strings.Trim(s, "0123456789") == "":
			return fmt.Sprintf("digits%d", len(s))
		}
		return "other"
	}
	set := map[string]bool{}
	var walk func(prefix string, v any, isID bool)
	walk = func(prefix string, v any, isID bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(strings.TrimPrefix(prefix+"."+k, "."), e, idMembers[k])
			}
		case []any:
			for _, e := range x {
				walk(prefix+"[]", e, isID)
			}
		default:
			if isID {
				set[prefix+":"+form(x)] = true
			}
		}
	}
	walk("", v, false)
	return slices.Sorted(maps.Keys(set))
}
