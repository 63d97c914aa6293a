package emulator_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// Example runs the consent flow of an AISP against the emulator with
// plain net/http and the signing package: the first account call answers
// 401 with a scaRedirect, the PSU authorises (here in-process), and the
// call with PSU-ID and TPP-Session-ID lists the accounts.
func Example() {
	s := emulator.NewServer()
	defer s.Close()
	creds, err := s.NewTPP("Example AISP")
	if err != nil {
		panic(err)
	}
	signer, err := signing.NewSigner(creds.Key, signing.KeyID(creds.Certificate))
	if err != nil {
		panic(err)
	}
	hc := s.Client()
	sessionID := uuid.NewString()

	get := func(path, psuID string) (int, map[string]json.RawMessage) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("X-Request-ID", uuid.NewString())
		req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
		req.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(creds.Certificate.Raw))
		req.Header.Set("TPP-Redirect-URI", "https://tpp.example/callback?state=42")
		req.Header.Set("TPP-Session-ID", sessionID)
		req.Header.Set("PSU-IP-Address", "192.0.2.10")
		if psuID != "" {
			req.Header.Set("PSU-ID", psuID)
		}
		if err := signer.Sign(req); err != nil {
			panic(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var body map[string]json.RawMessage
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}

	status, body := get("/v1/accounts", "")
	var links struct {
		SCARedirect struct{ Href string } `json:"scaRedirect"`
	}
	_ = json.Unmarshal(body["_links"], &links)
	fmt.Println(status, strings.Contains(links.SCARedirect.Href, "/tap-sandbox/"))

	callback, err := s.Control().Authorize(context.Background(), links.SCARedirect.Href, emulator.CustomerKari)
	if err != nil {
		panic(err)
	}
	fmt.Println(callback.Query().Get("state"), callback.Query().Get("context"), callback.Query().Get("tpp-session-id") == sessionID)

	status, body = get("/v1/accounts", callback.Query().Get("psu-id"))
	var accounts []struct{ Name string }
	_ = json.Unmarshal(body["accounts"], &accounts)
	fmt.Println(status, accounts)
	// Output:
	// 401 true
	// 42 PRIVATE true
	// 200 [{Brukskonto} {Høyrentekonto}]
}
