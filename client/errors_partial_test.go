package client_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// partialSentinels are the sentinels a *client.Error matches.
var partialSentinels = []error{client.ErrSCARequired, client.ErrSCAExpired, client.ErrConsentExpired,
	client.ErrConsentInvalid, client.ErrConsentUnknown, client.ErrAccessExceeded, client.ErrKIDInvalid,
	client.ErrNotFound, client.ErrCertificate}

// TestErrorBodyPartlyMalformed sends error bodies through the client's
// send path whose scaRedirect link (or code) is fine but some sibling
// member has a type the interface does not give it: a link's verbs as a
// string, another link that is not an object, tppMessages as a single
// object or with entries that are not objects, fields of a message that
// are not strings, psuMessage as an object or a number. Each such member
// loses only itself: SCA required is detected, the redirect href is found,
// the codes still match HasCode and the sentinels, and the readable
// siblings are kept.
func TestErrorBodyPartlyMalformed(t *testing.T) {
	t.Parallel()
	const href = "https://bank.example/tap/authorize?state=s3cr3t"
	const link = `"scaRedirect":{"href":"` + href + `","verbs":["GET"]}`
	const consentInvalid = `[{"category":"ERROR","code":"CONSENT_INVALID"}]`
	tests := []struct {
		name     string
		status   int
		body     string
		redirect string   // the scaRedirect href expected, "" for none
		verbs    []string // the scaRedirect verbs expected
		codes    []string // the codes of Messages, in order
		psu      string   // PSUMessage expected
		want     []error  // exactly the sentinels matched
	}{
		{"well formed", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{` + link + `},"psuMessage":"Log in"}`,
			href, []string{"GET"}, []string{"CONSENT_INVALID"}, "Log in", []error{client.ErrSCARequired}},
		{"scaRedirect verbs a string", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"scaRedirect":{"href":"` + href + `","verbs":"GET"}}}`,
			href, nil, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"scaRedirect verbs an object", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"scaRedirect":{"href":"` + href + `","verbs":{"GET":true}}}}`,
			href, nil, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"scaRedirect verbs with a number", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"scaRedirect":{"href":"` + href + `","verbs":[5,"GET",null]}}}`,
			href, []string{"GET"}, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"scaRedirect with an unknown field", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"scaRedirect":{"href":"` + href + `","verbs":["GET"],"templated":"yes"}}}`,
			href, []string{"GET"}, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"other link verbs a string", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"self":{"href":"/v1/accounts","verbs":"GET"},` + link + `}}`,
			href, []string{"GET"}, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"other link a string", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"status":"/v1/x",` + link + `}}`,
			href, []string{"GET"}, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"other link an array", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{` + link + `,"self":[1,2]}}`,
			href, []string{"GET"}, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"other link href a number", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"self":{"href":42},` + link + `}}`,
			href, []string{"GET"}, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"tppMessages a single object", 401,
			`{"tppMessages":{"category":"ERROR","code":"CONSENT_INVALID"},"_links":{"scaRedirect":{"href":"` + href + `"}}}`,
			href, nil, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"tppMessages with entries that are not objects", 401,
			`{"tppMessages":["x",5,null,[],{"category":"ERROR","code":"SCA_EXPIRED"}],"_links":{` + link + `}}`,
			href, []string{"GET"}, []string{"SCA_EXPIRED"}, "", []error{client.ErrSCARequired, client.ErrSCAExpired}},
		{"message text an object", 401,
			`{"tppMessages":[{"category":"ERROR","code":"CONSENT_EXPIRED","text":{"en":"expired"},"path":7}],"_links":{` + link + `}}`,
			href, []string{"GET"}, []string{"CONSENT_EXPIRED"}, "", []error{client.ErrSCARequired, client.ErrConsentExpired}},
		{"one message code a number", 401,
			`{"tppMessages":[{"code":401},{"category":"ERROR","code":"SCA_EXPIRED"}],"_links":{` + link + `}}`,
			href, []string{"GET"}, []string{"", "SCA_EXPIRED"}, "", []error{client.ErrSCARequired, client.ErrSCAExpired}},
		{"tppMessages a string", 401,
			`{"tppMessages":"CONSENT_INVALID","_links":{` + link + `},"psuMessage":"Log in"}`,
			href, []string{"GET"}, nil, "Log in", []error{client.ErrSCARequired}},
		{"psuMessage an object", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"scaRedirect":{"href":"` + href + `"}},"psuMessage":{"no":"NO"}}`,
			href, nil, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"psuMessage a number", 401,
			`{"psuMessage":12,"tppMessages":[{"category":"ERROR","code":"SCA_EXPIRED"}],"_links":{` + link + `}}`,
			href, []string{"GET"}, []string{"SCA_EXPIRED"}, "", []error{client.ErrSCARequired, client.ErrSCAExpired}},
		{"unknown members of odd types", 401,
			`{"extra":[1,{"a":null}],"tppMessages":` + consentInvalid + `,"_links":{` + link + `},"more":true}`,
			href, []string{"GET"}, []string{"CONSENT_INVALID"}, "", []error{client.ErrSCARequired}},
		{"every sibling malformed at once", 401,
			`{"tppMessages":{"category":["ERROR"],"code":"CONSENT_EXPIRED","text":1},"_links":{"self":"x","status":{"href":"/s","verbs":"GET"},"scaRedirect":{"href":"` + href + `","verbs":"GET"}},"psuMessage":["a"]}`,
			href, nil, []string{"CONSENT_EXPIRED"}, "", []error{client.ErrSCARequired, client.ErrConsentExpired}},
		// Without a readable scaRedirect there is no SCA to offer, but the
		// code is still read.
		{"scaRedirect a string", 401,
			`{"tppMessages":` + consentInvalid + `,"_links":{"scaRedirect":"` + href + `"}}`,
			"", nil, []string{"CONSENT_INVALID"}, "", []error{client.ErrConsentInvalid}},
		{"_links an array", 401,
			`{"tppMessages":{"code":"CONSENT_INVALID"},"_links":[{"href":"` + href + `"}]}`,
			"", nil, []string{"CONSENT_INVALID"}, "", []error{client.ErrConsentInvalid}},
		{"429 single message and odd links", 429,
			`{"tppMessages":{"category":"ERROR","code":"ACCESS_EXCEEDED"},"_links":5}`,
			"", nil, []string{"ACCESS_EXCEEDED"}, "", []error{client.ErrAccessExceeded}},
		{"400 KID_INVALID with odd psuMessage", 400,
			`{"tppMessages":[{"category":"ERROR","code":"KID_INVALID","path":["reference"]}],"psuMessage":false}`,
			"", nil, []string{"KID_INVALID"}, "", []error{client.ErrKIDInvalid}},
		{"403 CONSENT_UNKNOWN single message", 403,
			`{"tppMessages":{"category":"ERROR","code":"CONSENT_UNKNOWN"},"psuMessage":"Consent revoked"}`,
			"", nil, []string{"CONSENT_UNKNOWN"}, "Consent revoked", []error{client.ErrConsentUnknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			t.Cleanup(srv.Close)
			c, err := client.New(srv.URL, testtpp.Credentials(t, "Partial TPP"), client.WithRetryPolicy(client.RetryPolicy{}),
				client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
			require.NoError(t, err)
			op := client.Operation{Name: "accounts.List", Method: http.MethodGet, Path: "/v1/accounts"}
			_, err = c.Do(t.Context(), op, nil)
			require.Error(t, err)

			var ce *client.Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.status, ce.StatusCode)
			got, ok := client.SCARedirect(err)
			assert.Equal(t, tt.redirect, got)
			assert.Equal(t, tt.redirect != "", ok)
			if tt.redirect != "" {
				l, ok := ce.Links.Get(client.LinkSCARedirect)
				require.True(t, ok)
				assert.Equal(t, tt.verbs, l.Verbs)
				assert.Equal(t, len(tt.verbs) > 0, l.Allows(http.MethodGet))
			}
			var codes []string
			for _, m := range ce.Messages {
				codes = append(codes, m.Code)
			}
			assert.Equal(t, tt.codes, codes)
			for _, code := range tt.codes {
				if code != "" {
					assert.True(t, ce.HasCode(code), "HasCode(%s)", code)
				}
			}
			assert.Equal(t, tt.psu, ce.PSUMessage)
			for _, s := range partialSentinels {
				assert.Equal(t, containsErr(tt.want, s), errors.Is(err, s), "errors.Is(err, %v)", s)
			}
			// The href carries the bank's SCA state: the error line never
			// shows it.
			assert.NotContains(t, err.Error(), "s3cr3t")
		})
	}
}

// containsErr reports whether list holds e.
func containsErr(list []error, e error) bool {
	for _, l := range list {
		if l == e {
			return true
		}
	}
	return false
}
