package sca_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

const day = 24 * time.Hour

// consentAt0 is the first consent of kari at t0 (the emulator's clock
// now): the SCA of the accounts listing, then the accounts remembered in
// the stored session while listing is allowed, as refresh.Remember does.
// It returns the stored session and the accounts.
func consentAt0(t *testing.T, e *tpp) (*sca.Session, []accounts.Account) {
	t.Helper()
	s := e.login(t, "kari", emulator.CustomerKari)
	require.False(t, s.NoConsent, "an account call's SCA is the consent flow")
	require.True(t, s.ConsentExpiresAt().Equal(s.SCAAt.Add(sca.ConsentValidity)))
	accs, r := e.listAccounts(t, "kari")
	require.Nil(t, r)
	require.Len(t, accs, 2, "Kari has 2 accounts")
	ids := []string{accs[0].ResourceID, accs[1].ResourceID}
	s, err := s.WithAccounts(ids, nil)
	require.NoError(t, err)
	require.NoError(t, sca.SaveSession(t.Context(), e.mgr.Store(), "kari", s))
	return s, accs
}

// balances reads an account's balances in session s without the PSU, as
// a background refresh does.
func (e *tpp) balances(t *testing.T, s *sca.Session, accountID string) error {
	t.Helper()
	_, err := e.acc.Balances(t.Context(), accountID, s.RequestOptions(nil), client.WithRedirectURI(e.mgr.Flow().RedirectURI()))
	return err
}

// requireCode checks that err is the bank's answer status with code.
func requireCode(t *testing.T, err error, status int, code string) {
	t.Helper()
	var ce *client.Error
	require.True(t, errors.As(err, &ce), "a bank error, got %v", err)
	assert.Equal(t, status, ce.StatusCode)
	require.NotEmpty(t, ce.Messages)
	assert.Equal(t, code, ce.Messages[0].Code)
}

// The audit's repro: a PISP SCA (GET /v1/user, a payment) 80 days after
// the consent grants no consent (docs/interface.md section 5.10). The
// session keeps the accounts it remembers and the consent end of day 90,
// the renewal warning fires, and on day 91 the SDK knows the consent is
// over, as the bank does.
func TestPISPSCAKeepsConsentEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		purpose sca.Purpose
		sca     func(t *testing.T, e *tpp, accs []accounts.Account) sca.Redirect
	}{
		{name: "GET /v1/user in the same TPP-Session-ID", purpose: sca.PurposeIdentify,
			sca: func(t *testing.T, e *tpp, _ []accounts.Account) sca.Redirect {
				call, err := e.mgr.Prepare(t.Context(), "kari", present) // Flow.Start(Renew(s1))
				require.NoError(t, err)
				r, needed, err := sca.User(t.Context(), e.c, call.Options)
				require.NoError(t, err)
				require.True(t, needed, "the SCA of day 0 is long past its hour")
				got, ok, err := call.Redirect(t.Context(), r)
				require.NoError(t, err)
				require.True(t, ok)
				return got
			}},
		{name: "a payment under a new TPP-Session-ID", purpose: sca.PurposePayment,
			sca: func(t *testing.T, e *tpp, accs []accounts.Account) sca.Redirect {
				call, err := e.mgr.Begin(t.Context(), "kari", present) // Flow.Start(switchTo(s1))
				require.NoError(t, err)
				pis, err := payments.New(e.c)
				require.NoError(t, err)
				init, err := pis.CreateNorwegianDomestic(t.Context(), &payments.NorwegianDomestic{
					InstructedAmount:                  money.MustParse("249.00", "NOK"),
					CreditorName:                      "Nettbutikken AS",
					CreditorAccount:                   payments.AccountReference{BBAN: "86011117947", Currency: "NOK"},
					CreditorAddress:                   &payments.Address{Street: "Storgata", BuildingNumber: "1", PostalCode: "0155", City: "Oslo", Country: "NO"},
					DebtorAccount:                     payments.AccountReference{BBAN: accs[0].BBAN, Currency: "NOK"},
					RemittanceInformationUnstructured: "Order 118",
				}, call.Options)
				require.NoError(t, err)
				got, ok, err := call.Redirect(t.Context(), init)
				require.NoError(t, err)
				require.True(t, ok)
				return got
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTPP(t)
			s1, accs := consentAt0(t, e)
			t0 := s1.SCAAt

			e.clock.Set(t0.Add(80 * day))
			r := tt.sca(t, e, accs)
			assert.Equal(t, tt.purpose, r.Purpose, "worked out from the answer")
			cb, err := e.bank.Control().Authorize(t.Context(), r.String(), emulator.CustomerKari)
			require.NoError(t, err)
			s2, err := e.visit(t, cb)
			require.NoError(t, err)

			assert.Equal(t, s1.PSUID, s2.PSUID)
			assert.True(t, s2.SCAAt.Equal(e.clock.Now()), "the SCA itself is new")
			assert.True(t, s2.SCAValid(e.clock.Now()))
			assert.False(t, s2.NoConsent)
			assert.Equal(t, s1.AccountIDs, s2.AccountIDs, "the remembered accounts are kept")
			assert.True(t, s2.ConsentExpiresAt().Equal(t0.Add(sca.ConsentValidity)),
				"the consent still ends on day 90, not %v", s2.ConsentExpiresAt())
			assert.True(t, s2.ConsentRenewalDue(e.clock.Now(), 15*day), "10 days left: within a 15-day window")
			assert.False(t, s2.ConsentRenewalDue(e.clock.Now(), 5*day))
			stored, err := e.mgr.Session(t.Context(), "kari")
			require.NoError(t, err)
			assert.Equal(t, s2.TPPSessionID, stored.TPPSessionID)
			assert.Equal(t, s1.AccountIDs, stored.AccountIDs)
			assert.True(t, stored.ConsentExpiresAt().Equal(t0.Add(sca.ConsentValidity)))

			// The bank agrees: on day 85 the consent holds, on day 91 it
			// is over for both.
			e.clock.Set(t0.Add(85 * day))
			assert.True(t, stored.ConsentValid(e.clock.Now()))
			require.NoError(t, e.balances(t, stored, s1.AccountIDs[0]))
			e.clock.Set(t0.Add(91 * day))
			assert.False(t, stored.ConsentValid(e.clock.Now()), "the SDK knows the consent is over")
			requireCode(t, e.balances(t, stored, s1.AccountIDs[0]), 401, "CONSENT_EXPIRED")
		})
	}
}

// A consent renewed on day 80 (the accounts listing's SCA, or a
// bank-offered consent) does give a fresh 90 days; the accounts are to be
// listed again.
func TestConsentRenewalGivesFresh90Days(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sca  func(t *testing.T, e *tpp) sca.Redirect
	}{
		{name: "accounts listing in the same TPP-Session-ID", sca: func(t *testing.T, e *tpp) sca.Redirect {
			_, r := e.listAccounts(t, "kari")
			require.NotNil(t, r, "the SCA of day 0 is long past its hour")
			return *r
		}},
		{name: "bank-offered consent under a new TPP-Session-ID", sca: func(t *testing.T, e *tpp) sca.Redirect {
			call, err := e.mgr.Begin(t.Context(), "kari", present)
			require.NoError(t, err)
			consent, err := e.acc.StartConsent(t.Context(), call.Options)
			require.NoError(t, err)
			r, ok, err := call.Redirect(t.Context(), consent)
			require.NoError(t, err)
			require.True(t, ok)
			return r
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTPP(t)
			s1, _ := consentAt0(t, e)
			t0 := s1.SCAAt

			e.clock.Set(t0.Add(80 * day))
			r := tt.sca(t, e)
			assert.Equal(t, sca.PurposeConsent, r.Purpose)
			cb, err := e.bank.Control().Authorize(t.Context(), r.String(), emulator.CustomerKari)
			require.NoError(t, err)
			s2, err := e.visit(t, cb)
			require.NoError(t, err)
			assert.False(t, s2.NoConsent)
			assert.True(t, s2.ConsentExpiresAt().Equal(t0.Add(80*day+sca.ConsentValidity)), "a fresh 90 days")
			assert.Empty(t, s2.AccountIDs, "a new consent: the accounts are listed again")
			assert.False(t, s2.ConsentRenewalDue(e.clock.Now(), 15*day))

			accs, again := e.listAccounts(t, "kari")
			require.Nil(t, again, "within the hour of the new SCA")
			require.Len(t, accs, 2)
			e.clock.Set(t0.Add(91 * day))
			assert.True(t, s2.ConsentValid(e.clock.Now()))
			require.NoError(t, e.balances(t, s2, accs[0].ResourceID), "the bank renewed the consent too")
		})
	}
}
