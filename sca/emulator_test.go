package sca_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// outcome is what the TPP app's continuation received.
type outcome struct {
	session *sca.Session
	err     error
}

// tpp is a TPP web app against the emulator: a client, a Manager over a
// file store, and an httptest server mounting Manager.Handler at the
// redirect URI.
type tpp struct {
	bank     *emulator.Server
	c        *client.Client
	acc      *accounts.Service
	mgr      *sca.Manager
	app      *httptest.Server
	clock    *testtpp.Clock
	outcomes chan outcome
}

// present is the PSU at the browser (docs/interface.md section 5.14).
var present = &client.PSU{IPAddress: "198.51.100.7", UserAgent: "Mozilla/5.0"}

func newTPP(t *testing.T, opts ...emulator.Option) *tpp {
	t.Helper()
	clk := testtpp.NewClock(time.Now().Truncate(time.Second))
	bank := testtpp.Server(t, append([]emulator.Option{emulator.WithClock(clk.Now)}, opts...)...)
	c := testtpp.NewClient(t, bank, "SCA Test TPP", client.WithClock(clk.Now))

	acc, err := accounts.New(c)
	require.NoError(t, err)
	e := &tpp{bank: bank, c: c, acc: acc, clock: clk, outcomes: make(chan outcome, 4)}
	mux := http.NewServeMux()
	e.app = httptest.NewServer(mux)
	t.Cleanup(e.app.Close)
	flow, err := sca.NewFlow(e.app.URL+"/psd2/callback", sca.WithClient(c))
	require.NoError(t, err)
	st, err := store.NewFileStore(t.TempDir() + "/sessions")
	require.NoError(t, err)
	e.mgr, err = sca.NewManager(flow, st)
	require.NoError(t, err)
	mux.Handle("/psd2/callback", e.mgr.Handler(func(w http.ResponseWriter, r *http.Request, s *sca.Session, err error) {
		e.outcomes <- outcome{s, err}
		if err != nil {
			http.Error(w, "SCA not completed", http.StatusForbidden)
			return
		}
		io.WriteString(w, "welcome back")
	}))
	return e
}

// visit sends the PSU's browser to the callback URL the bank redirected to
// and returns what the handler passed to the app.
func (e *tpp) visit(t *testing.T, callback *url.URL) (*sca.Session, error) {
	t.Helper()
	u, err := url.Parse(e.app.URL)
	require.NoError(t, err)
	require.Equal(t, u.Host, callback.Host, "the bank sends the browser to the TPP's redirect URI")
	resp, err := e.app.Client().Get(callback.String())
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	assert.Equal(t, "no-referrer", resp.Header.Get("Referrer-Policy"))
	o := <-e.outcomes
	if o.err == nil {
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "welcome back", string(body))
	} else {
		assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	}
	return o.session, o.err
}

// listAccounts lists the accounts of the PSU under key as the app would:
// Prepare, call, and on a scaRedirect save the pending SCA and return it.
func (e *tpp) listAccounts(t *testing.T, key string) ([]accounts.Account, *sca.Redirect) {
	t.Helper()
	ctx := t.Context()
	call, err := e.mgr.Prepare(ctx, key, present)
	require.NoError(t, err)
	accs, err := e.acc.List(ctx, nil, call.Options)
	if err == nil {
		return accs, nil
	}
	r, ok, rerr := call.Redirect(ctx, err)
	require.NoError(t, rerr)
	require.True(t, ok, "only SCA may stop the listing: %v", err)
	assert.ErrorIs(t, err, client.ErrSCARequired)
	return nil, &r
}

// login runs a first SCA for key as customer through the handler.
func (e *tpp) login(t *testing.T, key, customer string) *sca.Session {
	t.Helper()
	_, r := e.listAccounts(t, key)
	require.NotNil(t, r, "a PSU without session is sent to SCA")
	cb, err := e.bank.Control().Authorize(t.Context(), r.String(), customer)
	require.NoError(t, err)
	s, err := e.visit(t, cb)
	require.NoError(t, err)
	return s
}

func TestPrivateSCAThroughHandler(t *testing.T) {
	t.Parallel()
	e := newTPP(t)
	ctx := t.Context()

	// A bank-offered consent starts the SCA.
	call, err := e.mgr.Begin(ctx, "kari", present, sca.WithAuthMethod(sca.AuthMethodApp), sca.WithRedirectPreferred(false))
	require.NoError(t, err)
	assert.Nil(t, call.Session)
	consent, err := e.acc.StartConsent(ctx, call.Options)
	require.NoError(t, err)
	r, ok, err := call.Redirect(ctx, consent)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "https", r.URL.Scheme)

	cb, err := e.bank.Control().Authorize(ctx, r.String(), emulator.CustomerKari)
	require.NoError(t, err)
	assert.Equal(t, call.Pending.State, cb.Query().Get("state"), "the bank brings the TPP's state back")
	head, err := e.app.Client().Head(cb.String())
	require.NoError(t, err)
	head.Body.Close()
	assert.Equal(t, http.StatusOK, head.StatusCode)
	assert.Empty(t, e.outcomes, "a HEAD does not complete the SCA")
	s, err := e.visit(t, cb)
	require.NoError(t, err)
	assert.Equal(t, client.Private, s.Context)
	assert.Equal(t, call.Pending.TPPSessionID, s.TPPSessionID)
	assert.Empty(t, s.PSUCorporateID)
	assert.True(t, s.SCAValid(e.clock.Now()))
	assert.Equal(t, "kari", s.Key)

	stored, err := e.mgr.Session(ctx, "kari")
	require.NoError(t, err)
	assert.Equal(t, s.PSUID, stored.PSUID)

	accs, redirect := e.listAccounts(t, "kari")
	require.Nil(t, redirect)
	assert.Len(t, accs, 2, "Kari has 2 accounts")

	// The same callback a second time (browser back button, replay).
	_, err = e.visit(t, cb)
	assert.ErrorIs(t, err, sca.ErrNoPending)
	// A forged state.
	forged := *cb
	q := forged.Query()
	q.Set("state", "forged")
	forged.RawQuery = q.Encode()
	_, err = e.visit(t, &forged)
	assert.ErrorIs(t, err, sca.ErrNoPending)
	still, err := e.mgr.Session(ctx, "kari")
	require.NoError(t, err)
	assert.Equal(t, s.PSUID, still.PSUID, "refused callbacks leave the session")
}

func TestCorporateSCAThroughHandler(t *testing.T) {
	t.Parallel()
	e := newTPP(t)
	ctx := t.Context()

	_, r := e.listAccounts(t, "fjordlys")
	require.NotNil(t, r)
	cb, err := e.bank.Control().AuthorizeCorporate(ctx, r.String(), emulator.CustomerFjordlys, "")
	require.NoError(t, err)
	s, err := e.visit(t, cb)
	require.NoError(t, err)
	assert.Equal(t, client.Corporate, s.Context)
	require.NotEmpty(t, s.PSUCorporateID, "the callback brings the chosen agreement")
	assert.False(t, s.NeedsCorporateID())

	accs, redirect := e.listAccounts(t, "fjordlys")
	require.Nil(t, redirect)
	assert.Len(t, accs, 2, "the first agreement covers both accounts")

	// List the agreements and choose the other one.
	call, err := e.mgr.Prepare(ctx, "fjordlys", nil)
	require.NoError(t, err)
	ags, err := e.acc.Agreements(ctx, call.Options)
	require.NoError(t, err)
	require.Len(t, ags, 2)
	assert.Equal(t, s.PSUCorporateID, ags[0].ID)
	second := ags[1].ID
	chosen, err := e.mgr.UseAgreement(ctx, "fjordlys", second)
	require.NoError(t, err)
	assert.Equal(t, second, chosen.PSUCorporateID)

	// Consent is per agreement: the bank asks for SCA again.
	_, r = e.listAccounts(t, "fjordlys")
	require.NotNil(t, r, "another agreement needs its own consent")
	cb, err = e.bank.Control().AuthorizeCorporate(ctx, r.String(), emulator.CustomerFjordlys, second)
	require.NoError(t, err)
	s2, err := e.visit(t, cb)
	require.NoError(t, err)
	assert.Equal(t, second, s2.PSUCorporateID)
	assert.Equal(t, s.TPPSessionID, s2.TPPSessionID, "renewed inside the same TPP-Session-ID")
	accs, redirect = e.listAccounts(t, "fjordlys")
	require.Nil(t, redirect)
	assert.Len(t, accs, 1, "the second agreement covers only the first account")
}

func TestSCAExpiresAfterAnHour(t *testing.T) {
	t.Parallel()
	e := newTPP(t)
	ctx := t.Context()
	s := e.login(t, "ola", emulator.CustomerOla)

	e.clock.Add(59 * time.Minute)
	valid, err := e.mgr.SCAValid(ctx, "ola", e.clock.Now())
	require.NoError(t, err)
	assert.True(t, valid)
	_, r := e.listAccounts(t, "ola")
	assert.Nil(t, r, "59 minutes after SCA no new SCA")

	e.clock.Add(2 * time.Minute)
	valid, err = e.mgr.SCAValid(ctx, "ola", e.clock.Now())
	require.NoError(t, err)
	assert.False(t, valid)
	_, r = e.listAccounts(t, "ola")
	require.NotNil(t, r, "61 minutes after SCA the bank asks again")

	cb, err := e.bank.Control().Authorize(ctx, r.String(), emulator.CustomerOla)
	require.NoError(t, err)
	renewed, err := e.visit(t, cb)
	require.NoError(t, err)
	assert.Equal(t, s.TPPSessionID, renewed.TPPSessionID)
	assert.Equal(t, s.PSUID, renewed.PSUID)
	assert.True(t, renewed.SCAAt.After(s.SCAAt))
	accs, r := e.listAccounts(t, "ola")
	assert.Nil(t, r)
	assert.Len(t, accs, 2)
}

// listWith lists accounts with an explicit (possibly old) session.
func (e *tpp) listWith(t *testing.T, s *sca.Session) error {
	t.Helper()
	_, err := e.acc.List(t.Context(), nil, s.RequestOptions(present), client.WithRedirectURI(e.mgr.Flow().RedirectURI()))
	return err
}

func TestSwitchTPPSessionID(t *testing.T) {
	t.Parallel()
	for _, completed := range []bool{true, false} {
		name := "aborted"
		if completed {
			name = "completed"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newTPP(t)
			ctx := t.Context()
			old := e.login(t, "kari", emulator.CustomerKari)
			require.NoError(t, e.listWith(t, old))

			call, err := e.mgr.Begin(ctx, "kari", present)
			require.NoError(t, err)
			require.NotNil(t, call.Session)
			assert.NotEqual(t, old.TPPSessionID, call.Pending.TPPSessionID)
			consent, err := e.acc.StartConsent(ctx, call.Options)
			require.NoError(t, err)
			r, ok, err := call.Redirect(ctx, consent)
			require.NoError(t, err)
			require.True(t, ok)
			require.NoError(t, e.listWith(t, old), "while the new SCA runs the old session is valid")

			if !completed {
				cb, err := e.bank.Control().Reject(ctx, r.String())
				require.NoError(t, err)
				s, err := e.visit(t, cb)
				assert.Nil(t, s)
				var ce *sca.CallbackError
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, "SCA_INVALID", ce.Code)
				assert.Equal(t, call.Pending.TPPSessionID, ce.TPPSessionID)
				kept, err := e.mgr.Session(ctx, "kari")
				require.NoError(t, err)
				assert.Equal(t, old.TPPSessionID, kept.TPPSessionID, "an aborted SCA keeps the old session")
				require.NoError(t, e.listWith(t, old), "the bank still accepts the old session")
				return
			}

			cb, err := e.bank.Control().Authorize(ctx, r.String(), emulator.CustomerKari)
			require.NoError(t, err)
			s, err := e.visit(t, cb)
			require.NoError(t, err)
			assert.Equal(t, call.Pending.TPPSessionID, s.TPPSessionID)
			assert.Equal(t, old.PSUID, s.PSUID)
			cur, err := e.mgr.Session(ctx, "kari")
			require.NoError(t, err)
			assert.Equal(t, s.TPPSessionID, cur.TPPSessionID, "the completed SCA replaced the session")
			require.NoError(t, e.listWith(t, s))
			err = e.listWith(t, old)
			require.Error(t, err, "the bank invalidated the old TPP-Session-ID")
			href, needsSCA := client.SCARedirect(err)
			assert.True(t, needsSCA)
			assert.NotEmpty(t, href)
		})
	}
}

func TestUserForPISP(t *testing.T) {
	t.Parallel()
	e := newTPP(t)
	ctx := t.Context()

	call, err := e.mgr.Begin(ctx, "shopper", present, sca.WithContext(client.Corporate))
	require.NoError(t, err)
	r, needed, err := sca.User(ctx, e.c, call.Options)
	require.NoError(t, err)
	require.True(t, needed, "GET /v1/user without session starts SCA")
	r2, ok, err := call.Redirect(ctx, r)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, r.String(), r2.String())

	cb, err := e.bank.Control().AuthorizeCorporate(ctx, r.String(), emulator.CustomerTestfirma, "")
	require.NoError(t, err)
	s, err := e.visit(t, cb)
	require.NoError(t, err)
	assert.Equal(t, client.Corporate, s.Context)
	assert.NotEmpty(t, s.PSUCorporateID, "the PISP learns the corporate id")

	again, err := e.mgr.Prepare(ctx, "shopper", present)
	require.NoError(t, err)
	_, needed, err = sca.User(ctx, e.c, again.Options)
	require.NoError(t, err)
	assert.False(t, needed, "within the hour the session is valid")

	// Without a redirect URI the SDK refuses before sending: the error
	// is returned.
	bare, err := client.New(e.bank.URL, e.c.Credentials(), client.WithHTTPClient(e.bank.Client()), client.WithClock(e.clock.Now))
	require.NoError(t, err)
	_, needed, err = sca.User(ctx, bare, s.RequestOptions(nil))
	require.ErrorIs(t, err, client.ErrNotSent)
	assert.False(t, needed)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "TPP-Redirect-URI", ve.Field)

	// A PSU-ID that is not a UUID is refused before sending, even given
	// as a raw header.
	_, needed, err = sca.User(ctx, e.c, client.WithTPPSessionID(s.TPPSessionID), client.WithHeader("PSU-ID", "not-a-uuid"))
	require.ErrorIs(t, err, client.ErrNotSent)
	assert.NotErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.False(t, needed)

	// Any other refusal of the bank is returned as its *client.Error: a
	// corporate context without PSU-Corporate-ID (docs/interface.md
	// section 5.10).
	_, needed, err = sca.User(ctx, e.c, client.WithTPPSessionID(s.TPPSessionID), client.WithPSU(client.PSU{ID: s.PSUID}),
		client.WithHeader("PSU-Context", "CORPORATE"))
	var ce *client.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, http.StatusBadRequest, ce.StatusCode)
	assert.False(t, needed)
}

func TestHandlerRefusesOtherMethods(t *testing.T) {
	t.Parallel()
	e := newTPP(t)
	resp, err := e.app.Client().Post(e.app.URL+"/psd2/callback?state=x", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))

	// The default continuation answers 400 for an unknown state.
	srv := httptest.NewServer(e.mgr.Handler(nil))
	defer srv.Close()
	resp, err = srv.Client().Get(srv.URL + "/?state=unknown&psu-id=x")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}
