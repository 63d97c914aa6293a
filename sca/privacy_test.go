package sca_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
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

	flow, err := sca.NewFlow("https://tpp.example/cb", sca.WithClock(func() time.Time { return time.Unix(1e9, 0) }))
	require.NoError(t, err)
	pending := func() *sca.Pending {
		return &sca.Pending{Key: "k", State: plantedState, TPPSessionID: "sid-1", ExpiresAt: time.Unix(1e9+60, 0)}
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
	_, _, err = flow.Start("k", sca.Renew(&sca.Session{PSUID: plantedBadPSU, TPPSessionID: "s", Context: sca.Private}))
	add(err)
	_, _, err = flow.Start(plantedNational + strings.Repeat("k", 2000))
	add(err)

	bad := []*sca.Session{
		{PSUID: plantedBadPSU, TPPSessionID: "s", Context: sca.Private},
		{PSUID: plantedPSU, TPPSessionID: plantedNational + "\n", Context: sca.Private},
		{PSUID: plantedPSU, TPPSessionID: "s", Context: sca.PSUContext(plantedNational)},
		{PSUID: plantedPSU, TPPSessionID: "s", Context: sca.Corporate, PSUCorporateID: plantedBadCorp},
		{PSUID: plantedPSU, TPPSessionID: "s", Context: sca.Private, PSUCorporateID: plantedCorp},
	}
	for _, s := range bad {
		add(s.Validate())
		add(sca.SaveSession(ctx, e.mgr.Store(), "k", s))
		_, err := sca.Agreements(ctx, e.c, s, client.WithRedirectURI("https://tpp.example/cb"))
		add(err)
		_, err = e.acc.List(ctx, nil, s.RequestOptions(nil))
		add(err)
	}
	good := &sca.Session{PSUID: plantedPSU, TPPSessionID: "s", Context: sca.Private}
	_, err = good.WithCorporate(plantedBadCorp)
	add(err)
	add(sca.SaveSession(ctx, e.mgr.Store(), "../"+plantedNational, good))
	add(e.mgr.Store().Put(ctx, "/"+plantedPSU, nil))
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
	_, err = sca.Agreements(ctx, e.c, good, call.Options)
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

func TestSessionAndPendingPrintRedacted(t *testing.T) {
	t.Parallel()
	s := &sca.Session{Key: "k", PSUID: plantedPSU, PSUCorporateID: plantedCorp, TPPSessionID: plantedState, Context: sca.Corporate, SCAAt: time.Unix(1e9, 0)}
	p := &sca.Pending{Key: "k", State: plantedState, TPPSessionID: plantedState, RedirectURI: "https://tpp.example/cb?state=" + plantedState}
	var logged strings.Builder
	log := slog.New(slog.NewJSONHandler(&logged, nil))
	log.Info("session", "s", s, "p", p)
	for _, form := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s", s, s, s, s), fmt.Sprintf("%v %+v %#v", p, p, p), fmt.Sprintf("%v %+v %#v", *s, *p, []sca.Session{*s}), logged.String()} {
		for _, secret := range planted {
			assert.NotContains(t, form, secret)
		}
	}
	assert.Contains(t, s.String(), "CORPORATE")
	assert.Contains(t, logged.String(), "redacted")
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Contains(t, string(b), plantedPSU, "JSON is the storage form and keeps the ids")
}
