package client

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readPlatform reads one of the platform's error documents, copied into
// testdata from the project's shared platform fixtures.
func readPlatform(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestErrorDecoding(t *testing.T) {
	t.Parallel()
	scaHref := "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=ec5ae9e2-a56e-45ca-a0fa-ad1dc481e998&context=PRIVATE"
	tests := []struct {
		file    string
		status  int
		want    Error
		matches []error
		line    string
	}{
		{
			file: "error-400-format-error.json", status: 400,
			want: Error{Messages: []TPPMessage{{Category: "ERROR", Code: CodeFormatError, Path: "creditorAccount.bban", Text: "creditorAccount.bban must be 11 digits with a valid MOD11 check digit."}}},
			line: "op: 400 Bad Request: FORMAT_ERROR at creditorAccount.bban",
		},
		{
			file: "error-400-kid-invalid.json", status: 400,
			want:    Error{Messages: []TPPMessage{{Category: "ERROR", Code: CodeKIDInvalid, Path: "remittanceInformationStructured.reference", Text: "The KID does not have a valid check digit."}}},
			matches: []error{ErrKIDInvalid},
			line:    "op: 400 Bad Request: KID_INVALID at remittanceInformationStructured.reference",
		},
		{
			file: "error-401-sca-redirect.json", status: 401,
			want: Error{
				Messages: []TPPMessage{{Category: "ERROR", Code: CodeConsentInvalid, Text: "No valid session for this PSU. Send the PSU to the scaRedirect link."}},
				Links:    Links{LinkSCARedirect: {Href: scaHref, Verbs: []string{"GET"}}},
			},
			// The platform's answer to a first call without consent: only
			// the link counts, its CONSENT_INVALID code is not a reason.
			matches: []error{ErrSCARequired},
			line:    "op: 401 Unauthorized: CONSENT_INVALID",
		},
		{
			file: "error-403-consent-unknown.json", status: 403,
			want:    Error{Messages: []TPPMessage{{Category: "ERROR", Code: CodeConsentUnknown, Text: "The consent for this PSU and TPP does not exist or has been revoked."}}},
			matches: []error{ErrConsentUnknown},
			line:    "op: 403 Forbidden: CONSENT_UNKNOWN",
		},
		{
			file: "error-429-access-exceeded.json", status: 429,
			want:    Error{Messages: []TPPMessage{{Category: "ERROR", Code: CodeAccessExceeded, Text: "The access limit of 4 calls per 24 hours without the PSU present is exceeded for this account."}}},
			matches: []error{ErrAccessExceeded},
			line:    "op: 429 Too Many Requests: ACCESS_EXCEEDED",
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			body := readPlatform(t, tt.file)
			const id = "0e0c5a43-0b5f-4e0f-8a55-5a3a0c1b2d3e"
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				w.Write(body)
			})
			c := newTestClient(t, b.URL+"/api", WithRetryPolicy(RetryPolicy{}))
			_, err := c.Do(t.Context(), Operation{Name: "op", Method: "GET", Path: "/v1/accounts"}, nil, WithRequestID(id))
			var e *Error
			require.ErrorAs(t, err, &e)
			want := tt.want
			want.Operation, want.StatusCode, want.RequestID, want.Header = "op", tt.status, id, e.Header
			assert.Equal(t, &want, e)
			assert.Equal(t, tt.line, err.Error())
			for _, s := range sentinels {
				assert.Equal(t, contains(tt.matches, s), errors.Is(err, s), "%v", s)
			}
			href, ok := SCARedirect(err)
			assert.Equal(t, tt.want.Links.SCARedirect(), href)
			assert.Equal(t, href != "", ok)
		})
	}
}

// sentinels are the sentinels a *Error matches.
var sentinels = []error{ErrSCARequired, ErrSCAExpired, ErrConsentExpired, ErrConsentInvalid, ErrConsentUnknown,
	ErrAccessExceeded, ErrKIDInvalid, ErrNotFound, ErrCertificate}

// TestErrorSentinels: each sentinel matches exactly the answers its doc
// names; the scaRedirect link says "send the PSU to SCA", the code says why.
func TestErrorSentinels(t *testing.T) {
	t.Parallel()
	link := Links{LinkSCARedirect: {Href: "https://psd2.bank.example/tap/9999/?state=s", Verbs: []string{"GET"}}}
	msg := func(code string) []TPPMessage { return []TPPMessage{{Category: "ERROR", Code: code}} }
	tests := []struct {
		name    string
		status  int
		code    string
		links   Links
		matches []error
	}{
		{"first call without consent", 401, CodeConsentInvalid, link, []error{ErrSCARequired}},
		{"401 with a link and no code", 401, "", link, []error{ErrSCARequired}},
		{"SCA window of one hour passed", 401, CodeSCAExpired, link, []error{ErrSCARequired, ErrSCAExpired}},
		{"SCA_EXPIRED without a link", 401, CodeSCAExpired, nil, []error{ErrSCAExpired}},
		{"SCA_EXPIRED not on a 401", 400, CodeSCAExpired, nil, nil},
		{"90-day consent expired", 401, CodeConsentExpired, link, []error{ErrSCARequired, ErrConsentExpired}},
		{"CONSENT_EXPIRED without a link", 401, CodeConsentExpired, nil, []error{ErrConsentExpired}},
		{"CONSENT_EXPIRED not on a 401", 403, CodeConsentExpired, nil, nil},
		{"consent invalid, no SCA offered", 401, CodeConsentInvalid, nil, []error{ErrConsentInvalid}},
		{"CONSENT_INVALID not on a 401", 400, CodeConsentInvalid, nil, nil},
		{"revoked", 403, CodeConsentUnknown, nil, []error{ErrConsentUnknown}},
		{"daily budget", 429, CodeAccessExceeded, nil, []error{ErrAccessExceeded}},
		{"429 without messages", 429, "", nil, []error{ErrAccessExceeded}},
		{"KID missing", 400, CodeKIDMissing, nil, []error{ErrKIDInvalid}},
		{"404", 404, CodeResourceUnknown, nil, []error{ErrNotFound}},
		{"certificate expired", 401, CodeCertificateExpired, nil, []error{ErrCertificate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := &Error{Operation: "op", StatusCode: tt.status, Links: tt.links}
			if tt.code != "" {
				e.Messages = msg(tt.code)
			}
			for _, s := range sentinels {
				assert.Equal(t, contains(tt.matches, s), errors.Is(e, s), "%v", s)
			}
		})
	}
}

func contains(list []error, e error) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

func TestErrorOddBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   string
		line   string
		nf     bool
	}{
		{"html", 502, "<html>bad gateway</html>", "op: 502 Bad Gateway", false},
		{"empty 404", 404, "", "op: 404 Not Found", true},
		{"wrong types", 400, `{"tppMessages":"x","_links":[1]}`, "op: 400 Bad Request", false},
	}
	for _, tt := range tests {
		e := newError("op", tt.status, "id", nil, []byte(tt.body))
		assert.Equal(t, tt.line, e.Error(), tt.name)
		assert.Equal(t, tt.nf, e.Is(ErrNotFound), tt.name)
		assert.Empty(t, e.Messages, tt.name)
	}
}

func TestOutcomeUnknownError(t *testing.T) {
	t.Parallel()
	inner := &Error{Operation: "op", StatusCode: 503}
	e := &OutcomeUnknownError{Operation: "op", RequestID: "rid", StatusCode: 503, Err: inner}
	assert.True(t, e.Is(ErrOutcomeUnknown))
	assert.Equal(t, "op: outcome unknown, not sent again (X-Request-ID rid): op: 503 Service Unavailable", e.Error())
	var got *Error
	require.ErrorAs(t, e, &got)
	assert.Same(t, inner, got)
}

func FuzzErrorBody(f *testing.F) {
	for _, name := range []string{"error-400-format-error.json", "error-400-kid-invalid.json", "error-401-sca-redirect.json", "error-403-consent-unknown.json", "error-429-access-exceeded.json"} {
		f.Add(401, readPlatform(f, name))
	}
	f.Add(500, []byte(`{"tppMessages":[{"text":"`+string(make([]byte, 300))+`"}]}`))
	f.Add(0, []byte(`null`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := newError("op", status, "id", nil, body)
		if e.Error() == "" {
			t.Fatal("empty error line")
		}
		for _, s := range sentinels {
			_ = e.Is(s)
		}
		if h := e.SCARedirect(); h != "" {
			if _, ok := SCARedirect(e); !ok {
				t.Fatal("SCARedirect disagrees with SCARedirect")
			}
		}
	})
}

func TestErrorRetryAfter(t *testing.T) {
	t.Parallel()
	date := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	now := date.Add(time.Minute) // the answer's Date wins over the caller's clock
	tests := []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{}, 0, false},
		{http.Header{"Retry-After": {"30"}}, 30 * time.Second, true},
		{http.Header{"Retry-After": {"-1"}}, 0, false},
		{http.Header{"Retry-After": {"9999999999"}}, 24 * time.Hour, true},
		{http.Header{"Retry-After": {date.Add(90 * time.Second).Format(http.TimeFormat)}, "Date": {date.Format(http.TimeFormat)}}, 90 * time.Second, true},
		{http.Header{"Retry-After": {date.Add(90 * time.Second).Format(http.TimeFormat)}}, 30 * time.Second, true},
		{http.Header{"Retry-After": {date.Add(-time.Hour).Format(http.TimeFormat)}, "Date": {date.Format(http.TimeFormat)}}, 0, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
	}
	for _, tt := range tests {
		d, ok := (&Error{Header: tt.h}).RetryAfter(now)
		assert.Equal(t, tt.ok, ok, "%v", tt.h)
		assert.Equal(t, tt.want, d, "%v", tt.h)
	}
	_, ok := (*Error)(nil).RetryAfter(now)
	assert.False(t, ok)
}
