package client

import (
	"encoding/json"
	"testing"
)

// FuzzErrorBodySiblings puts arbitrary JSON values in the members next to
// a well-formed scaRedirect link and a well-formed first message of a 401
// body: tppMessages' second entry, psuMessage, another link and an unknown
// member. Whatever those values are, the scaRedirect href is found, the
// first code is read, and nothing panics.
func FuzzErrorBodySiblings(f *testing.F) {
	for _, seed := range [][4]string{
		{`{"code":"X"}`, `"Log in"`, `{"href":"/v1/x","verbs":["GET"]}`, `null`},
		{`"x"`, `{"no":"NO"}`, `{"href":"/v1/x","verbs":"GET"}`, `[1,2]`},
		{`5`, `12`, `"oops"`, `{"a":{"b":[]}}`},
		{`{"code":7,"text":{}}`, `["a"]`, `{"href":42,"verbs":[1,"GET"]}`, `true`},
		{`[]`, `null`, `[]`, `"s"`},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	const href = "https://bank.example/tap/authorize?state=s"
	f.Fuzz(func(t *testing.T, msg, psu, other, extra string) {
		for _, v := range []string{msg, psu, other, extra} {
			if !json.Valid([]byte(v)) {
				t.Skip()
			}
		}
		body := `{"tppMessages":[{"category":"ERROR","code":"SCA_EXPIRED"},` + msg + `],` +
			`"_links":{"other":` + other + `,"scaRedirect":{"href":"` + href + `"}},` +
			`"psuMessage":` + psu + `,"extra":` + extra + `}`
		e := newError("op", 401, "id", nil, []byte(body))
		if got := e.SCARedirect(); got != href {
			t.Fatalf("scaRedirect %q, want %q, body %s", got, href, body)
		}
		if len(e.Messages) == 0 || e.Messages[0].Code != CodeSCAExpired {
			t.Fatalf("messages %+v, body %s", e.Messages, body)
		}
		if !e.Is(ErrSCARequired) || !e.Is(ErrSCAExpired) {
			t.Fatalf("sentinels not matched, body %s", body)
		}
	})
}
