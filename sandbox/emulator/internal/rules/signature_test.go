package rules

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckRequestID(t *testing.T) {
	t.Parallel()
	form := Format("X-Request-ID", "X-Request-ID must be 1 to 200 printable ASCII characters.")
	for id, want := range map[string]*Violation{
		"b0a4c5d2-8e0f-4e21-9a51-0d2f4c3b7a10": nil,
		"not a uuid ~ at all":                  nil,
		strings.Repeat("x", MaxRequestIDLen):   nil,
		strings.Repeat("x", MaxRequestIDLen+1): form,
		"id\x7f":                               form,
		"idé":                                  form,
		"":                                     HeaderRequired("X-Request-ID"),
		" \t":                                  HeaderRequired("X-Request-ID"),
	} {
		assert.Equal(t, want, CheckRequestID(id), "%q", id)
	}
}

func TestCheckSignatureValue(t *testing.T) {
	t.Parallel()
	assert.Nil(t, CheckSignatureValue(`keyId="SN=1,CA=CN=x",algorithm="rsa-sha256",headers="date",signature="AA=="`))
	assert.Nil(t, CheckSignatureValue("=?utf-8?B?"+base64.StdEncoding.EncodeToString([]byte(`keyId="SN=1,CA=CN=Ærø"`))+"?="))
	assert.Equal(t, HeaderRequired("Signature"), CheckSignatureValue(" "))
	v := CheckSignatureValue(`keyId="SN=1,CA=CN=Ærø"`)
	if assert.NotNil(t, v) {
		assert.Equal(t, CodeFormat, v.Code)
		assert.Equal(t, "Signature", v.Path)
		assert.Contains(t, v.Message, "RFC 2047")
	}
}

func TestCheckHeaderListCase(t *testing.T) {
	t.Parallel()
	lower := `keyId="SN=1,CA=CN=X",algorithm="rsa-sha256",headers="date x-request-id",signature="AA=="`
	upper := `keyId="SN=1,CA=CN=X",algorithm="rsa-sha256",headers="Date x-request-id",signature="AA=="`
	for sig, ok := range map[string]bool{
		lower: true,
		upper: false,
		`keyId="SN=1,CA=CN=\"Headers=\"X",headers="date"`: true, // an escaped quote inside a value
		`Headers="date"`:                        true, // only the headers parameter counts, named in lower case
		`headers="date`:                         true, // not parseable: the parser's to refuse
		`keyId="SN=1,CA=CN=X",headers="DIGEST"`: false,
	} {
		v := CheckHeaderListCase(sig)
		if ok {
			assert.Nil(t, v, sig)
		} else {
			assert.Equal(t, Format("Signature", "The headers part of the Signature must list lower-case header names."), v, sig)
		}
	}
}

func TestCheckSignedHeaders(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("PSU-ID", "p")
	h.Set("TPP-Redirect-URI", "https://tpp.example/cb")
	all := []string{"date", "x-request-id", "digest", "psu-id", "tpp-redirect-uri"}
	tests := []struct {
		name     string
		h        http.Header
		signed   []string
		digested bool
		want     string // the message, "" for no violation
	}{
		{"all covered", h, all, true, ""},
		{"minimum without body", http.Header{}, []string{"x-request-id", "date"}, false, ""},
		{"psu-corporate-id may be signed unsent", http.Header{}, []string{"date", "x-request-id", "psu-corporate-id"}, false, ""},
		{"request-target refused", http.Header{}, []string{"(request-target)", "date", "x-request-id"}, false,
			"The header (request-target) cannot be signed; the headers list may only name date, digest, x-request-id, psu-id, psu-corporate-id, tpp-redirect-uri."},
		{"content-type refused", h, append([]string{"content-type"}, all...), true,
			"The header content-type cannot be signed; the headers list may only name date, digest, x-request-id, psu-id, psu-corporate-id, tpp-redirect-uri."},
		{"date needed", http.Header{}, []string{"x-request-id"}, false, "The signature must cover the header date."},
		{"digest needed with a body", http.Header{}, []string{"date", "x-request-id"}, true, "The signature must cover the header digest."},
		{"sent psu-id needed", h, []string{"date", "x-request-id", "tpp-redirect-uri"}, false, "The signature must cover the header psu-id."},
		{"sent redirect needed", h, []string{"date", "x-request-id", "psu-id"}, false, "The signature must cover the header tpp-redirect-uri."},
	}
	for _, tt := range tests {
		v := CheckSignedHeaders(tt.h, tt.signed, tt.digested)
		if tt.want == "" {
			assert.Nil(t, v, tt.name)
			continue
		}
		assert.Equal(t, Format("Signature", "%s", tt.want), v, tt.name)
	}
}
