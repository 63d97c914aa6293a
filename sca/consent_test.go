package sca_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

func consentSession(at time.Time) *sca.Session {
	return &sca.Session{PSUID: uuid.NewString(), TPPSessionID: "sid-" + uuid.NewString(), Context: client.Private, SCAAt: at}
}

func TestSessionConsentEnd(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	s := consentSession(at)
	end := at.Add(sca.ConsentValidity)
	assert.Equal(t, end, s.ConsentExpiresAt())
	assert.True(t, s.ConsentValid(end.Add(-time.Nanosecond)))
	assert.False(t, s.ConsentValid(end))

	week := 7 * 24 * time.Hour
	assert.False(t, s.ConsentRenewalDue(end.Add(-week-time.Nanosecond), week))
	assert.True(t, s.ConsentRenewalDue(end.Add(-week), week))
	assert.True(t, s.ConsentRenewalDue(end.Add(time.Hour), week), "ended")

	// The bank's own end wins.
	s.ConsentUntil = at.Add(30 * 24 * time.Hour)
	assert.Equal(t, s.ConsentUntil, s.ConsentExpiresAt())
	assert.False(t, s.ConsentValid(s.ConsentUntil))

	// Unknown: no SCA time.
	var none sca.Session
	assert.True(t, none.ConsentExpiresAt().IsZero())
	assert.False(t, none.ConsentValid(at))
	assert.True(t, none.ConsentRenewalDue(at, week))
	var nilSession *sca.Session
	assert.True(t, nilSession.ConsentExpiresAt().IsZero())
	assert.True(t, nilSession.ConsentRenewalDue(at, 0))
}

func TestSessionWithAccounts(t *testing.T) {
	t.Parallel()
	s := consentSession(time.Now())
	ids := []string{"enc!!a=", "enc!!b=", "enc!!a="}
	got, err := s.WithAccounts(ids, []string{"card-1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"enc!!a=", "enc!!b="}, got.AccountIDs, "duplicates dropped")
	assert.Equal(t, []string{"card-1"}, got.CardAccountIDs)
	assert.Nil(t, s.AccountIDs, "the original is unchanged")
	ids[1] = "changed"
	assert.Equal(t, "enc!!b=", got.AccountIDs[1], "the ids are copied")
	require.NoError(t, got.Validate())

	for name, bad := range map[string][]string{
		"empty":   {""},
		"control": {"a\nb"},
		"long":    {strings.Repeat("a", 257)},
	} {
		_, err := s.WithAccounts(bad, nil)
		assert.ErrorIs(t, err, sca.ErrInvalidSession, name)
		_, err = s.WithAccounts(nil, bad)
		assert.ErrorIs(t, err, sca.ErrInvalidSession, name)
	}
	many := make([]string, sca.MaxAccounts+1)
	for i := range many {
		many[i] = fmt.Sprint("a", i)
	}
	_, err = s.WithAccounts(many, nil)
	assert.ErrorIs(t, err, sca.ErrInvalidSession)
	_, err = (*sca.Session)(nil).WithAccounts(nil, nil)
	assert.ErrorIs(t, err, sca.ErrInvalidSession)

	// A stored session with an invalid id does not load.
	bad := *got
	bad.AccountIDs = []string{"a\rb"}
	assert.ErrorIs(t, bad.Validate(), sca.ErrInvalidSession)

	// Another agreement is another consent: the ids are not its accounts.
	corp := *got
	corp.Context = client.Corporate
	corp.PSUCorporateID = uuid.NewString()
	same, err := corp.WithCorporate(corp.PSUCorporateID)
	require.NoError(t, err)
	assert.Equal(t, got.AccountIDs, same.AccountIDs)
	other, err := corp.WithCorporate(uuid.NewString())
	require.NoError(t, err)
	assert.Nil(t, other.AccountIDs)
	assert.Nil(t, other.CardAccountIDs)
}

// The account ids are stored in clear and never printed; sessions stored
// before they existed still load.
func TestSessionAccountsStoredNotPrinted(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := consentSession(time.Unix(1e9, 0).UTC()).WithAccounts([]string{"MARK-ACCOUNT-1", "MARK-ACCOUNT-2"}, []string{"MARK-CARD-1"})
	require.NoError(t, err)
	s.ConsentUntil = time.Unix(1e9+86400, 0).UTC()
	st := store.NewMemoryStore()
	require.NoError(t, sca.SaveSession(ctx, st, "user-1", s))
	back, err := sca.LoadSession(ctx, st, "user-1")
	require.NoError(t, err)
	assert.Equal(t, s, back)

	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("s", "session", s, "value", *s)
	red, err := json.Marshal(s)
	require.NoError(t, err)
	printed := fmt.Sprintf("%v %+v %#v %s %v", s, s, s, *s, []any{s}) + logs.String() + string(red)
	for _, m := range []string{"MARK-ACCOUNT-1", "MARK-ACCOUNT-2", "MARK-CARD-1", s.PSUID, s.TPPSessionID} {
		assert.NotContains(t, printed, m)
	}
	assert.Contains(t, s.String(), "accounts=2 cardAccounts=1")
	assert.Contains(t, string(red), `"accountCount":2`)
	assert.ErrorIs(t, json.Unmarshal(red, &sca.Session{}), sca.ErrRedactedForm)

	// A session stored before sessions remembered accounts.
	old := `{"key":"user-2","psuId":"` + s.PSUID + `","tppSessionId":"sid-2","context":"PRIVATE","scaAt":"2001-09-09T01:46:40Z"}`
	require.NoError(t, st.Put(ctx, "sca/session/user-2", []byte(old), 0))
	got, err := sca.LoadSession(ctx, st, "user-2")
	require.NoError(t, err)
	assert.Nil(t, got.AccountIDs)
	assert.Equal(t, time.Unix(1e9, 0).UTC().Add(sca.ConsentValidity), got.ConsentExpiresAt())
}

func TestManagerSessions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := store.NewMemoryStore()
	flow, err := sca.NewFlow("https://tpp.example/cb")
	require.NoError(t, err)
	m, err := sca.NewManager(flow, st)
	require.NoError(t, err)
	want := map[string]string{}
	for _, key := range []string{"c", "a", "b"} {
		s := consentSession(time.Now())
		require.NoError(t, sca.SaveSession(ctx, st, key, s))
		want[key] = s.PSUID
	}
	require.NoError(t, st.Put(ctx, "sca/pending/x", []byte("{}"), 0))
	require.NoError(t, st.Put(ctx, "sca/session/bad", []byte(`{"psuId":"x"}`), 0))
	var keys []string
	var errs int
	for s, err := range m.Sessions(ctx) {
		if err != nil {
			errs++
			continue
		}
		keys = append(keys, s.Key)
		assert.Equal(t, want[s.Key], s.PSUID)
	}
	assert.Equal(t, []string{"a", "b", "c"}, keys, "in key order, pending SCAs left out")
	assert.Equal(t, 1, errs, "the invalid session")
}
