package sca_test

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// Planted personal data and secrets: none may show in an error string.
const (
	plantedPSU      = "7a1c2f0e-5b3d-4e8f-9a6b-1c2d3e4f5a6b"
	plantedBadPSU   = "psu-24117912345-x"
	plantedCorp     = "0f1e2d3c-4b5a-6978-8a9b-acbdcedf0102"
	plantedBadCorp  = "corp-918273645"
	plantedNational = "24117912345"
	plantedState    = "PLANTEDstate0123456789abcdefXYZ"
)

var planted = []string{plantedPSU, plantedBadPSU, plantedCorp, plantedBadCorp, plantedNational, plantedState}

func TestNoPersonalDataInErrors(t *testing.T) {
	t.Parallel()
	e := newTPP(t)
	ctx := t.Context()
	var errs []error
	add := func(err error) {
		t.Helper()
		require.Error(t, err)
		errs = append(errs, err)
	}

	t0 := time.Now().Truncate(time.Second)
	flow, err := sca.NewFlow("https://tpp.example/cb", sca.WithClient(e.c))
	require.NoError(t, err)
	pending := func() *sca.Pending {
		return &sca.Pending{Key: "k", State: plantedState, TPPSessionID: "sid-1", ExpiresAt: t0.Add(time.Hour)}
	}
	q := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return "https://tpp.example/cb?" + v.Encode()
	}
	callbacks := []string{
		q("state", plantedState+"x", "psu-id", plantedPSU),
		q("state", plantedState, "psu-id", plantedBadPSU, "tpp-session-id", "sid-1", "context", "PRIVATE"),
		q("state", plantedState, "psu-id", plantedPSU, "tpp-session-id", plantedNational, "context", "PRIVATE"),
		q("state", plantedState, "psu-id", plantedPSU, "tpp-session-id", "sid-1", "context", plantedNational),
		q("state", plantedState, "psu-id", plantedPSU, "tpp-session-id", "sid-1", "context", "CORPORATE", "psu-corporate-id", plantedBadCorp),
		q("state", plantedState, "psu-id", plantedPSU, "tpp-session-id", "sid-1", "context", "PRIVATE", "psu-corporate-id", plantedCorp),
		q("state", plantedState, "psu-id", plantedPSU, "psu-id", plantedPSU),
		q("state", plantedState, "psu-id", plantedPSU+"\n"),
		q("state", plantedState, "system", "sca", "status", "401", "code", "SCA_INVALID", "message", "PSU "+plantedNational+" "+plantedPSU+" cancelled"),
		q("state", plantedState, "status", plantedNational, "code", "X"),
		q("state", plantedState, "psu-id", plantedPSU, "code", plantedNational),
		"https://tpp.example/cb?state=" + plantedState + "&psu-id=" + plantedPSU + "%zz",
		"https://tpp.example/cb?state=" + plantedState + "&psu-id=" + strings.Repeat(plantedNational, 1000),
	}
	for _, cb := range callbacks {
		_, err := flow.ParseCallback(pending(), cb)
		add(err)
		_, err = e.mgr.Complete(ctx, cb)
		add(err)
		if _, err := sca.CallbackState(cb); err != nil {
			add(err)
		}
	}
	p := pending()
	p.ExpiresAt = time.Unix(1, 0)
	_, err = flow.ParseCallback(p, q("state", plantedState, "psu-id", plantedPSU, "tpp-session-id", "sid-1", "context", "PRIVATE"))
	add(err)
	_, err = flow.ParseCallback(p, q("state", plantedState))
	add(err)

	_, _, err = flow.Start("k", sca.WithPSUIdentity(plantedNational+"\r\nX-Evil: 1"))
	add(err)
	_, _, err = flow.Start("k", sca.WithAuthMethod(sca.AuthMethod(plantedNational+" x")))
	add(err)
	_, _, err = flow.Start("k", sca.Renew(&sca.Session{PSUID: plantedBadPSU, TPPSessionID: "s", Context: client.Private}))
	add(err)
	_, _, err = flow.Start(plantedNational + strings.Repeat("k", 2000))
	add(err)

	bad := []*sca.Session{
		{PSUID: plantedBadPSU, TPPSessionID: "s", Context: client.Private},
		{PSUID: plantedPSU, TPPSessionID: plantedNational + "\n", Context: client.Private},
		{PSUID: plantedPSU, TPPSessionID: "s", Context: client.PSUContext(plantedNational)},
		{PSUID: plantedPSU, TPPSessionID: "s", Context: client.Corporate, PSUCorporateID: plantedBadCorp},
		{PSUID: plantedPSU, TPPSessionID: "s", Context: client.Private, PSUCorporateID: plantedCorp},
	}
	for _, s := range bad {
		add(s.Validate())
		add(sca.SaveSession(ctx, e.mgr.Store(), "k", s))
		_, err := e.acc.Agreements(ctx, s.RequestOptions(nil), client.WithRedirectURI("https://tpp.example/cb"))
		add(err)
		_, err = e.acc.List(ctx, nil, s.RequestOptions(nil))
		add(err)
	}
	good := &sca.Session{PSUID: plantedPSU, TPPSessionID: "s", Context: client.Private}
	_, err = good.WithCorporate(plantedBadCorp)
	add(err)
	add(sca.SaveSession(ctx, e.mgr.Store(), "../"+plantedNational, good))
	add(e.mgr.Store().Put(ctx, "/"+plantedPSU, nil, 0))
	_, err = sca.LoadSession(ctx, e.mgr.Store(), plantedNational)
	add(err)
	_, err = e.mgr.UseAgreement(ctx, plantedNational, plantedCorp)
	add(err)
	_, err = sca.TakePending(ctx, e.mgr.Store(), plantedState)
	add(err)

	// The bank's answer for an unknown PSU-ID and an unknown agreement.
	call, err := e.mgr.Prepare(ctx, "someone", nil)
	require.NoError(t, err)
	_, err = e.acc.List(ctx, nil, call.Options, client.WithPSU(client.PSU{ID: plantedPSU, CorporateID: plantedCorp}))
	add(err)
	_, err = e.acc.Agreements(ctx, call.Options, good.RequestOptions(nil))
	add(err)

	require.Greater(t, len(errs), 50)
	for _, err := range errs {
		for _, form := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err)} {
			for _, secret := range planted {
				assert.NotContains(t, form, secret, "error %q leaks a planted value", form)
			}
		}
	}
}

// printedForms renders v in every way a program may print or log it:
// slog's text and JSON handlers, the fmt verbs, json.Marshal (its error
// string when it refuses), alone and nested in a struct and a slice.
func printedForms(t *testing.T, v any) map[string]string {
	t.Helper()
	var text, textNested, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", v)
	slog.New(slog.NewTextHandler(&textNested, nil)).Info("m", "nested", []any{v}) // printed with %+v
	slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v, "nested", []any{v})
	marshal := func(x any) string {
		b, err := json.Marshal(x)
		if err != nil {
			return "refused: " + err.Error()
		}
		return string(b)
	}
	return map[string]string{
		"slog text": text.String(), "slog text nested": textNested.String(), "slog json": js.String(),
		"json.Marshal": marshal(v), "json nested": marshal(struct{ V any }{v}),
		"%v": fmt.Sprintf("%v", v), "%+v": fmt.Sprintf("%+v", v), "%#v": fmt.Sprintf("%#v", v), "%s": fmt.Sprintf("%s", v),
		"nested %v": fmt.Sprintf("%v %+v", []any{v}, struct{ V any }{v}), "nested %#v": fmt.Sprintf("%#v", []any{v}),
	}
}

// TestSecretsNeverPrinted plants a distinct marker in every secret field
// of the SDK's types that hold a key, a session or PSU data, and looks for
// it in every printed form of each (pointer and value).
func TestSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	creds := testtpp.Credentials(t, "Privacy TPP")
	key := creds.Key.(*rsa.PrivateKey)
	keyMarks := []string{key.D.String()[:32], key.Primes[0].String()[:32], key.D.Text(16)[:32],
		base64.StdEncoding.EncodeToString(key.D.Bytes())[:32], base64.StdEncoding.EncodeToString(x509.MarshalPKCS1PrivateKey(key))[64:128]}
	signer, err := signing.NewSigner(creds.Key, "SN=1A,CA=CN=Privacy")
	require.NoError(t, err)
	sig := []byte("MARK-SIGNATURE-BYTES")
	params := signing.SignatureParams{KeyID: "SN=1A,CA=CN=Privacy", Algorithm: signing.Algorithm, Headers: []string{"date"}, Signature: sig}
	psu := client.PSU{ID: "MARK-PSU-ID", CorporateID: "MARK-PSU-CORP", IPAddress: "MARK-IP-ADDRESS", IPPort: "MARK-IP-PORT",
		UserAgent: "MARK-USER-AGENT", Accept: "MARK-ACCEPT", AcceptCharset: "MARK-CHARSET", AcceptEncoding: "MARK-ENCODING",
		AcceptLanguage: "MARK-LANGUAGE", GeoLocation: "MARK-GEO", HTTPMethod: "MARK-METHOD", DeviceID: "MARK-DEVICE-ID"}
	session := sca.Session{Key: "MARK-SESSION-KEY", PSUID: "MARK-SESSION-PSU", PSUCorporateID: "MARK-SESSION-CORP",
		TPPSessionID: "MARK-SESSION-TPPSID", Context: client.Corporate, SCAAt: time.Unix(1e9, 0)}
	pending := sca.Pending{Key: "MARK-PENDING-KEY", State: "MARK-PENDING-STATE", TPPSessionID: "MARK-PENDING-TPPSID",
		RedirectURI: "https://tpp.example/cb?state=MARK-PENDING-URI-STATE#MARK-FRAGMENT", ExpiresAt: time.Unix(1e9, 0)}
	cbErr := sca.CallbackError{System: "sca", Status: 401, Code: "SCA_INVALID", Message: "MARK-CB-MESSAGE", TPPSessionID: "MARK-CB-TPPSID"}
	link, err := url.Parse("https://bank.example/tap/9999/?state=MARK-BANK-STATE&psu=MARK-BANK-PSU#MARK-BANK-FRAGMENT")
	require.NoError(t, err)
	redirect := sca.Redirect{URL: link, Verbs: []string{"GET"}}
	call := sca.Prepared{Session: &session, Pending: &pending}

	tests := []struct {
		name    string
		values  []any
		marks   []string
		skip    []string // forms that are the value itself by design
		visible string   // a non-secret part that must still show
	}{
		{"signing.Credentials", []any{creds, *creds}, keyMarks, nil, "[redacted]"},
		{"signing.Signer", []any{signer}, keyMarks, nil, "SN=1A"},
		{"signing.SignatureParams", []any{&params, params}, []string{string(sig), base64.StdEncoding.EncodeToString(sig)}, nil, "SN=1A"},
		{"client.PSU", []any{&psu, psu}, markers(psu), nil, "[redacted]"},
		{"sca.Session", []any{&session, session}, markers(session), nil, "CORPORATE"},
		{"sca.Pending", []any{&pending, pending}, append(markers(pending), "MARK-PENDING-URI-STATE", "MARK-FRAGMENT"), nil, "[redacted]"},
		{"sca.CallbackError", []any{&cbErr, cbErr}, []string{cbErr.Message, cbErr.TPPSessionID}, nil, "SCA_INVALID"},
		// Redirect.String is the link the browser is sent to, in full.
		{"sca.Redirect", []any{&redirect, redirect}, []string{"MARK-BANK-STATE", "MARK-BANK-PSU", "MARK-BANK-FRAGMENT"},
			[]string{"%v", "%+v", "%s", "nested %v", "slog text nested"}, "bank.example/tap/9999/"},
		{"sca.Prepared", []any{&call, call}, append(markers(session), markers(pending)...), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i, v := range tt.values {
				for form, out := range printedForms(t, v) {
					if slices.Contains(tt.skip, form) {
						continue
					}
					for _, m := range tt.marks {
						assert.NotContains(t, out, m, "value %d, form %s", i, form)
					}
					if tt.visible != "" && !strings.HasPrefix(out, "refused") {
						assert.Contains(t, out, tt.visible, "value %d, form %s", i, form)
					}
				}
			}
		})
	}
}

// markers returns the string fields of a struct that start with MARK.
func markers(v any) []string {
	var out []string
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if f := rv.Field(i); f.Kind() == reflect.String && strings.HasPrefix(f.String(), "MARK") {
			out = append(out, f.String())
		}
	}
	return out
}

// TestStorageFormKeepsSecrets: json.Marshal redacts, so the stores keep
// Sessions and Pendings in their storage form (MarshalBinary), and read
// what earlier versions stored.
func TestStorageFormKeepsSecrets(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := store.NewMemoryStore()
	s := &sca.Session{PSUID: plantedPSU, PSUCorporateID: plantedCorp, TPPSessionID: "sid-1", Context: client.Corporate, SCAAt: time.Unix(1e9, 0).UTC()}
	require.NoError(t, sca.SaveSession(ctx, st, "user-1", s))
	raw, err := st.Get(ctx, "sca/session/user-1")
	require.NoError(t, err)
	bin, err := s.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, bin, raw, "the store holds the storage form")
	assert.Contains(t, string(raw), plantedPSU)
	back, err := sca.LoadSession(ctx, st, "user-1")
	require.NoError(t, err)
	assert.Equal(t, s, back)

	// A session and a pending SCA as earlier versions stored them (plain
	// encoding/json of the structs) still load.
	old := `{"key":"user-2","psuId":"` + plantedPSU + `","psuCorporateId":"` + plantedCorp + `","tppSessionId":"sid-2","context":"CORPORATE","scaAt":"2001-09-09T01:46:40Z"}`
	require.NoError(t, st.Put(ctx, "sca/session/user-2", []byte(old), 0))
	got, err := sca.LoadSession(ctx, st, "user-2")
	require.NoError(t, err)
	assert.Equal(t, &sca.Session{Key: "user-2", PSUID: plantedPSU, PSUCorporateID: plantedCorp, TPPSessionID: "sid-2", Context: client.Corporate, SCAAt: time.Unix(1e9, 0).UTC()}, got)
	oldPending := `{"key":"user-2","state":"` + plantedState + `","tppSessionId":"sid-2","redirectUri":"https://tpp.example/cb?state=` + plantedState + `","createdAt":"2001-09-09T01:46:40Z","expiresAt":"2001-09-09T02:01:40Z"}`
	require.NoError(t, st.Put(ctx, "sca/pending/"+plantedState, []byte(oldPending), 0))
	p, err := sca.TakePending(ctx, st, plantedState)
	require.NoError(t, err)
	assert.Equal(t, &sca.Pending{Key: "user-2", State: plantedState, TPPSessionID: "sid-2", RedirectURI: "https://tpp.example/cb?state=" + plantedState,
		CreatedAt: time.Unix(1e9, 0).UTC(), ExpiresAt: time.Unix(1e9+900, 0).UTC()}, p)

	// Round trips of the storage form, and savePending writes it.
	require.NoError(t, sca.SavePending(ctx, st, p))
	raw, err = st.Get(ctx, "sca/pending/"+plantedState)
	require.NoError(t, err)
	assert.JSONEq(t, oldPending, string(raw), "the storage form is the earlier document")
	var p2 sca.Pending
	require.NoError(t, p2.UnmarshalBinary(raw))
	assert.Equal(t, *p, p2)
	var s2 sca.Session
	require.NoError(t, s2.UnmarshalBinary(bin))
	assert.Equal(t, *s, s2)

	// The redacted JSON form is refused, not read as ids.
	for _, v := range []any{s, p} {
		red, err := json.Marshal(v)
		require.NoError(t, err)
		assert.Contains(t, string(red), "[redacted]")
		assert.ErrorIs(t, json.Unmarshal(red, &sca.Session{}), sca.ErrRedactedForm)
		assert.ErrorIs(t, json.Unmarshal(red, &sca.Pending{}), sca.ErrRedactedForm)
		assert.ErrorIs(t, (&sca.Session{}).UnmarshalBinary(red), sca.ErrRedactedForm)
		assert.ErrorIs(t, (&sca.Pending{}).UnmarshalBinary(red), sca.ErrRedactedForm)
	}
	red, err := json.Marshal(s)
	require.NoError(t, err)
	assert.JSONEq(t, `{"psuId":"[redacted]","psuCorporateId":"[redacted]","tppSessionId":"[redacted]","context":"CORPORATE","scaAt":"2001-09-09T01:46:40Z"}`, string(red))
	require.NoError(t, st.Put(ctx, "sca/session/user-3", red, 0))
	_, err = sca.LoadSession(ctx, st, "user-3")
	assert.ErrorIs(t, err, sca.ErrRedactedForm)
	red, err = json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"state":"[redacted]","tppSessionId":"[redacted]","redirectUri":"https://tpp.example/cb?[redacted]","createdAt":"2001-09-09T01:46:40Z","expiresAt":"2001-09-09T02:01:40Z"}`, string(red))

	// A corrupt stored value fails without echoing it.
	require.NoError(t, st.Put(ctx, "sca/session/user-4", []byte(`{"psuId":"`+plantedPSU+`","scaAt":"`+plantedNational+`"}`), 0))
	_, err = sca.LoadSession(ctx, st, "user-4")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), plantedPSU)
}

// TestClientLogsOfAnSCAFlow runs a first SCA and an account listing
// against the emulator with the client's logger at Debug level: no
// PSU-ID, TPP-Session-ID, state, IP address, account id or query reaches
// the log, while method, path template and status do.
func TestClientLogsOfAnSCAFlow(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	bank := testtpp.Server(t)
	c := testtpp.NewClient(t, bank, "Logging TPP", client.WithLogger(logger))
	acc, err := accounts.New(c)
	require.NoError(t, err)
	flow, err := sca.NewFlow("https://tpp.example/psd2/callback")
	require.NoError(t, err)
	mgr, err := sca.NewManager(flow, store.NewMemoryStore())
	require.NoError(t, err)
	psu := &client.PSU{IPAddress: "198.51.100.77", UserAgent: "Mozilla/5.0 (MARK-UA)", DeviceID: "5b0f2a9c-1d3e-4f5a-8b6c-7d8e9f0a1b2c"}

	call, err := mgr.Prepare(ctx, "kari", psu)
	require.NoError(t, err)
	_, err = acc.List(ctx, nil, call.Options)
	r, ok, err := call.Redirect(ctx, err)
	require.NoError(t, err)
	require.True(t, ok)
	cb, err := bank.Control().Authorize(ctx, r.String(), emulator.CustomerKari)
	require.NoError(t, err)
	s, err := mgr.Complete(ctx, cb.String())
	require.NoError(t, err)
	call, err = mgr.Prepare(ctx, "kari", psu)
	require.NoError(t, err)
	list, err := acc.List(ctx, &accounts.ListOptions{WithBalance: true}, call.Options)
	require.NoError(t, err)
	require.NotEmpty(t, list)
	_, err = acc.Balances(ctx, list[0].ResourceID, call.Options)
	require.NoError(t, err)

	mu.Lock()
	out := logs.String()
	mu.Unlock()
	secrets := []string{s.PSUID, s.TPPSessionID, call.Pending.State, call.Pending.TPPSessionID, psu.IPAddress, "MARK-UA", psu.DeviceID,
		list[0].ResourceID, url.PathEscape(list[0].ResourceID), r.URL.Query().Get("state"), "withBalance"}
	for _, secret := range secrets {
		require.NotEmpty(t, secret)
		assert.NotContains(t, out, secret)
	}
	assert.Contains(t, out, `"path":"/v1/accounts"`)
	assert.Contains(t, out, `"path":"/v1/accounts/{id}/balances"`)
	assert.Contains(t, out, `"Tpp-Redirect-Uri":"https://tpp.example/psd2/callback?[redacted]"`)
	assert.Contains(t, out, `"Tpp-Session-Id":"[redacted]"`)
	assert.Contains(t, out, `"Psu-Id":"[redacted]"`)
	assert.Contains(t, out, `"status":401`)
	assert.Contains(t, out, `"status":200`)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
