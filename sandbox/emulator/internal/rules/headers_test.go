package rules

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRequirementOf(t *testing.T) {
	t.Parallel()
	basket := []string{"TPP-Redirect-URI", "x-accept-fix", "TPP-Session-ID", "PSU-ID", "PSU-IP-Address"}
	session := []string{"TPP-Redirect-URI", "TPP-Session-ID"} // an SCA may start
	tests := []struct {
		pattern   string
		headers   []string
		acceptFix string
		body      BodyRule
	}{
		{"GET /v1/accounts", session, "", BodyJSON},
		{"GET /v1/accounts/{id}/transactions/{transactionId}", session, "", BodyJSON},
		{"GET /v1/card-accounts", session, "", BodyJSON},
		{"GET /v1/card-accounts/{id}/balances", session, "", BodyJSON},
		{"GET /v1/user", session, "", BodyJSON},
		{"GET /v1/agreements", session, "", BodyJSON},
		{"POST /v1/bank-offered-consents", session, "", BodyJSON},
		{"POST /v1/consents", session, "", BodyIgnored},
		{"POST /v1/signing-baskets/{id}/authorisations", session, "", BodyJSON},
		{"POST /v1/periodic-payments/{product}/{id}/authorisations", session, "", BodyJSON},
		{"GET /v1/tpps/{tppId}/contact-information", []string{"TPP-Redirect-URI"}, "", BodyJSON},
		{"POST /v1/signing-baskets", basket, "amount-as-string", BodyDigestOptional},
		{"GET /v1/signing-baskets/{id}", []string{"TPP-Redirect-URI"}, "", BodyJSON},
		{"POST /v1/payments/{product}", append(basket, "Digest"), "amount-as-string", BodyJSON},
		{"POST /v1/periodic-payments/{product}", append(basket, "Digest"), "amount-as-string", BodyJSON},
		{"POST /v1/bulk-payments/{product}", append(basket, "Digest"), "amount-as-string", BodyJSON},
		{"POST /v1/payments/{product}/{id}/authorisations", session, "", BodyJSON},
		{"GET /v1/payments/{product}/{id}/status", []string{"TPP-Redirect-URI"}, "", BodyJSON},
		{"GET /v1/payments/{product}", []string{"TPP-Redirect-URI"}, "", BodyJSON},
		{"POST /v1/other-payments/{product}", []string{"TPP-Redirect-URI"}, "", BodyJSON},
		{"POST /v1/sandbox/customers", nil, "", BodyJSON},
		{"DELETE /v1/sandbox/agreements/{id}", nil, "", BodyJSON},
	}
	for _, tt := range tests {
		q := RequirementOf(tt.pattern)
		assert.Equal(t, tt.headers, q.Headers, tt.pattern)
		assert.Equal(t, tt.acceptFix, q.AcceptFix, tt.pattern)
		assert.Equal(t, tt.body, q.Body, tt.pattern)
		assert.Equal(t, tt.body == BodyJSON, q.Body.DigestRequired(), tt.pattern)
	}
	// The table is not shared with its callers.
	RequirementOf("POST /v1/payments/{product}").Headers[0] = "changed"
	assert.Equal(t, "TPP-Redirect-URI", RequirementOf("POST /v1/payments/{product}").Headers[0])
}

// header builds a header from name, value pairs.
func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func TestRequirementCheck(t *testing.T) {
	t.Parallel()
	full := []string{"TPP-Redirect-URI", "https://tpp.example/cb", "x-accept-fix", "something, Amount-As-String",
		"TPP-Session-ID", "s1", "PSU-ID", "7c3d53a2-3b8e-4b5e-9d1a-2f6b8a9e0c11", "PSU-IP-Address", "192.0.2.1", "Digest", "SHA-256=x"}
	without := func(name string) []string {
		var out []string
		for i := 0; i < len(full); i += 2 {
			if full[i] != name {
				out = append(out, full[i], full[i+1])
			}
		}
		return out
	}
	with := func(kv ...string) []string { return append(append([]string(nil), full...), kv...) }
	pay := RequirementOf("POST /v1/payments/{product}")
	tests := []struct {
		name string
		h    http.Header
		want *Violation
	}{
		{"all there", header(full...), nil},
		{"first missing named", header(without("TPP-Redirect-URI")...), HeaderRequired("TPP-Redirect-URI")},
		{"blank is missing", header(append(without("PSU-ID"), "PSU-ID", " \t")...), &Violation{CodeHeaderRequired, "PSU-ID", "The header PSU-ID is required."}},
		{"PSU-ID missing", header(without("PSU-ID")...), HeaderRequired("PSU-ID")},
		{"Digest missing", header(without("Digest")...), HeaderRequired("Digest")},
		{"accept-fix without the switch", header(append(without("x-accept-fix"), "x-accept-fix", "amount-as-number")...),
			&Violation{CodeHeaderRequired, "x-accept-fix", "The header x-accept-fix must carry amount-as-string."}},
		{"header form checked after", header(with("PSU-Device-ID", "device-1")...), Format("PSU-Device-ID", "PSU-Device-ID must be a UUID.")},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, pay.Check(tt.h), tt.name)
	}
	assert.Nil(t, RequirementOf("POST /v1/sandbox/customers").Check(http.Header{}), "mock data needs no operation header")
	assert.Equal(t, Format("TPP-Redirect-Preferred", "TPP-Redirect-Preferred must be true or false."),
		RequirementOf("POST /v1/sandbox/customers").Check(header("TPP-Redirect-Preferred", "yes")), "forms are checked on every call")
}

func TestCheckHeaderForms(t *testing.T) {
	t.Parallel()
	id := "7C3D53A2-3B8E-4B5E-9D1A-2F6B8A9E0C11"
	tests := []struct {
		h    http.Header
		path string // "" for no violation
	}{
		{http.Header{}, ""},
		{header("PSU-Device-ID", id, "PSU-HTTP-Method", "DELETE", "TPP-Redirect-Preferred", "FALSE"), ""},
		{header("PSU-Device-ID", "{"+id+"}"), "PSU-Device-ID"},
		{header("PSU-Device-ID", strings.ReplaceAll(id, "-", "")), "PSU-Device-ID"},
		{header("PSU-Device-ID", id, "PSU-Device-ID", id), "PSU-Device-ID"},
		{header("PSU-HTTP-Method", "get"), "PSU-HTTP-Method"},
		{header("PSU-HTTP-Method", "HEAD"), "PSU-HTTP-Method"},
		{header("TPP-Redirect-Preferred", ""), "TPP-Redirect-Preferred"},
		{header("TPP-Redirect-Preferred", "1"), "TPP-Redirect-Preferred"},
		{header("PSU-HTTP-Method", "HEAD", "PSU-Device-ID", "x"), "PSU-Device-ID"},
		{header("X-PSU-AuthMethod-Preferred", "HA2"), ""},
		{header("X-PSU-AuthMethod-Preferred", "ENGANGSKODEAPP_BIOMETRI"), ""},
		{header("X-PSU-AuthMethod-Preferred", "BANKID_MOBIL"), ""},
		{header("X-PSU-AuthMethod-Preferred", "BANKID"), ""},
		{header("X-PSU-AuthMethod-Preferred", "FACE_ID"), "X-PSU-AuthMethod-Preferred"},
		{header("X-PSU-AuthMethod-Preferred", "ha2"), "X-PSU-AuthMethod-Preferred"},
		{header("X-PSU-AuthMethod-Preferred", "<BANK_ID_METHOD>"), "X-PSU-AuthMethod-Preferred"},
		{header("X-PSU-AuthMethod-Preferred", ""), "X-PSU-AuthMethod-Preferred"},
		{header("X-PSU-AuthMethod-Preferred", "HA2", "X-PSU-AuthMethod-Preferred", "HA2"), "X-PSU-AuthMethod-Preferred"},
	}
	for _, tt := range tests {
		v := CheckHeaderForms(tt.h)
		if tt.path == "" {
			assert.Nil(t, v, "%v", tt.h)
			continue
		}
		if assert.NotNil(t, v, "%v", tt.h) {
			assert.Equal(t, CodeFormat, v.Code)
			assert.Equal(t, tt.path, v.Path, "%v", tt.h)
			assert.True(t, strings.HasPrefix(v.Message, tt.path+" must be "), v.Message)
		}
	}
}

func TestCanonicalUUID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"7C3D53A2-3B8E-4B5E-9D1A-2F6B8A9E0C11":          "7c3d53a2-3b8e-4b5e-9d1a-2f6b8a9e0c11",
		"7c3d53a2-3b8e-4b5e-9d1a-2f6b8a9e0c11":          "7c3d53a2-3b8e-4b5e-9d1a-2f6b8a9e0c11",
		"7c3d53a23b8e4b5e9d1a2f6b8a9e0c11":              "",
		"{7c3d53a2-3b8e-4b5e-9d1a-2f6b8a9e0c11}":        "",
		"urn:uuid:7c3d53a2-3b8e-4b5e-9d1a-2f6b8a9e0c11": "",
		"7c3d53a2-3b8e-4b5e-9d1a-2f6b8a9e0c1g":          "",
		"":                                              "",
	} {
		got, ok := CanonicalUUID(in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, want != "", ok, in)
	}
}

func TestPSUHeaders(t *testing.T) {
	t.Parallel()
	id, v := CheckPSUID("7C3D53A2-3B8E-4B5E-9D1A-2F6B8A9E0C11")
	assert.Nil(t, v)
	assert.Equal(t, "7c3d53a2-3b8e-4b5e-9d1a-2f6b8a9e0c11", id)
	id, v = CheckPSUID("kari")
	assert.Empty(t, id)
	assert.Equal(t, Format("PSU-ID", "PSU-ID must be a UUID."), v)

	assert.Equal(t, ContextPrivate, ContextOf(""))
	assert.Equal(t, ContextCorporate, ContextOf("agreement-1"))
	tests := []struct {
		ctx, corporateID string
		want             *Violation
	}{
		{"", "", nil},
		{"", "agreement-1", nil},
		{"PRIVATE", "", nil},
		{"CORPORATE", "agreement-1", nil},
		{"private", "", Format("PSU-Context", "PSU-Context must be PRIVATE or CORPORATE.")},
		{"BUSINESS", "agreement-1", Format("PSU-Context", "PSU-Context must be PRIVATE or CORPORATE.")},
		{"CORPORATE", "", Format("PSU-Context", "PSU-Context is CORPORATE but the PSU acts in PRIVATE context.")},
		{"PRIVATE", "agreement-1", Format("PSU-Context", "PSU-Context is PRIVATE but the PSU acts in CORPORATE context.")},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, CheckPSUContext(tt.ctx, tt.corporateID), "%q %q", tt.ctx, tt.corporateID)
	}
}

func TestCheckSCAHeaders(t *testing.T) {
	t.Parallel()
	redirect := Format("TPP-Redirect-URI", "TPP-Redirect-URI must be an absolute https URL.")
	tests := []struct {
		redirect, session string
		want              *Violation
	}{
		{"https://tpp.example/cb?state=1", "s", nil},
		{"http://127.0.0.1:8080/cb", strings.Repeat("s", MaxSessionIDLen), nil},
		{"", "s", HeaderRequired("TPP-Redirect-URI")},
		{"https://tpp.example/cb", " ", HeaderRequired("TPP-Session-ID")},
		{"/cb", "s", redirect},
		{"ftp://tpp.example/cb", "s", redirect},
		{"https:///cb", "s", redirect},
		{"https://tpp.example/%zz", "s", redirect},
		{"https://tpp.example/cb", strings.Repeat("s", MaxSessionIDLen+1), Format("TPP-Session-ID", "TPP-Session-ID is too long.")},
	}
	for _, tt := range tests {
		u, v := CheckSCAHeaders(header("TPP-Redirect-URI", tt.redirect, "TPP-Session-ID", tt.session))
		assert.Equal(t, tt.want, v, tt.redirect)
		if tt.want == nil && assert.NotNil(t, u, tt.redirect) {
			assert.Equal(t, tt.redirect, u.String())
		} else {
			assert.Nil(t, u, tt.redirect)
		}
	}
}
