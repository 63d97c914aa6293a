package txsync_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// bank is an emulator with one seeded PSU who gave consent at the
// clock's start, and the TPP's client on it.
type bank struct {
	srv   *emulator.Server
	svc   *accounts.Service
	clock *frozen
	cu    emulator.SeededCustomer
	sess  *sca.Session
}

func startBank(t *testing.T, clock *frozen, cu emulator.SeedCustomer) *bank {
	t.Helper()
	srv := emulator.NewServer(emulator.WithClock(clock.Now))
	t.Cleanup(srv.Close)
	creds, err := srv.NewTPP("txsync test")
	require.NoError(t, err)
	c, err := client.New(srv.URL, creds, client.WithHTTPClient(srv.Client()), client.WithClock(clock.Now),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	cu.Consent = &emulator.SeedConsent{At: clock.Now()}
	res, err := srv.Control().Seed(t.Context(), creds.Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{cu}})
	require.NoError(t, err)
	b := &bank{srv: srv, svc: svc, clock: clock, cu: res.Customers[0]}
	s := b.cu.Session
	b.sess = &sca.Session{PSUID: s.PSUID, TPPSessionID: s.TPPSessionID, Context: client.PSUContext(s.Context), SCAAt: s.SCAAt}
	return b
}

// present is the request option of a call with the PSU at the TPP's
// site; absent of one without.
func (b *bank) present() client.RequestOption {
	return b.sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"})
}

func (b *bank) absent() client.RequestOption { return b.sess.RequestOptions(nil) }

// startClock is a clock at the last full hour: dates of the seed and the
// sync come from it.
func startClock() *frozen { return &frozen{now: time.Now().UTC().Truncate(time.Hour)} }

// A booked card entry bought before the overlap window and booked inside
// it is still at the bank: it is not reported removed, whichever of its
// dates the bank filters the list by (the emulator: the transaction
// date). Before, the second read asked from the window's start by booking
// date, the emulator left the entry out by its purchase date, and the
// sync reported it removed.
func TestCardEntryBoughtBeforeTheWindowIsNotRemoved(t *testing.T) {
	clock := startClock()
	start := clock.Now()
	b := startBank(t, clock, emulator.SeedCustomer{CardAccounts: []emulator.SeedCardAccount{{Balance: "-150.00",
		Transactions: []emulator.SeedCardTransaction{
			{TransactionDate: start.AddDate(0, 0, -8), BookingDate: start.AddDate(0, 0, -1), Amount: "-100.00", Details: "Hotell Bergen"},
			{TransactionDate: start, Amount: "-50.00", Details: "Kiwi"},
		}}}})
	s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(clock.Now))
	require.NoError(t, err)
	card := b.cu.CardAccounts[0]
	l, err := s.Link(t.Context(), "user-1", nil, []accounts.CardAccount{{ResourceID: card.ID, MaskedPAN: card.MaskedPan, Currency: "NOK"}})
	require.NoError(t, err)
	k := l.Accounts[0].Key
	d, err := s.SyncCard(t.Context(), b.svc, card.ID, b.absent())
	require.NoError(t, err)
	require.Len(t, d.Added, 2)
	from, err := s.From(t.Context(), k)
	require.NoError(t, err)
	assert.Equal(t, date.Of(start.AddDate(0, 0, -8)), from, "asked from the window's card entry's purchase date")
	for range 2 {
		clock.add(12 * time.Hour)
		d, err = s.SyncCard(t.Context(), b.svc, card.ID, b.absent())
		require.NoError(t, err)
		assert.True(t, d.Empty(), "%v", d)
	}
}

// cardBank is a card account's list at a bank that filters it from a
// date by booking date (byBooking) or by transaction date.
func cardList(all []accounts.CardTransaction, from date.Date, byBooking bool) (r txsync.CardRead) {
	r.From = from
	for _, t := range all {
		d := t.TransactionDate
		if byBooking && t.Status == accounts.BookingBooked {
			d = t.BookingDate
		}
		if !from.IsZero() && d.Before(from) {
			continue
		}
		if t.Status == accounts.BookingPending {
			r.Pending = append(r.Pending, t)
		} else {
			r.Booked = append(r.Booked, t)
		}
	}
	return r
}

// Whichever date a bank filters card entries by, and whatever From a
// reader asked with (Syncer.From, or only the window's start), an entry
// the read did not ask for is not removed, and an identical read reports
// nothing.
func TestCardWindowByEitherDate(t *testing.T) {
	clock := &frozen{now: time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC)}
	today := clock.bankToday()
	all := []accounts.CardTransaction{
		{Status: accounts.BookingBooked, CardTransactionID: "1", TransactionDate: plusDays(today, -8), BookingDate: plusDays(today, -1),
			TransactionAmount: money.MustParse("-100.00", "NOK"), TransactionDetails: "Hotell Bergen"},
		{Status: accounts.BookingBooked, CardTransactionID: "2", TransactionDate: plusDays(today, -9), BookingDate: plusDays(today, -7),
			TransactionAmount: money.MustParse("-70.00", "NOK"), TransactionDetails: "Bok"},
		{Status: accounts.BookingBooked, CardTransactionID: "3", TransactionDate: today, BookingDate: today,
			TransactionAmount: money.MustParse("-50.00", "NOK"), TransactionDetails: "Kiwi"},
		{Status: accounts.BookingPending, CardTransactionID: "4", TransactionDate: today,
			TransactionAmount: money.MustParse("-20.00", "NOK"), TransactionDetails: "Narvesen"},
	}
	for _, byBooking := range []bool{true, false} {
		for _, windowOnly := range []bool{false, true} {
			s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(clock.Now))
			require.NoError(t, err)
			l, err := s.Link(t.Context(), "user-1", nil, []accounts.CardAccount{{ResourceID: "c1", MaskedPAN: "525412******3241", Currency: "NOK"}})
			require.NoError(t, err)
			k := l.Accounts[0].Key
			d, err := s.ApplyCard(t.Context(), k, cardList(all, date.Date{}, byBooking))
			require.NoError(t, err)
			require.Len(t, d.Added, 4)
			from, err := s.From(t.Context(), k)
			require.NoError(t, err)
			assert.Equal(t, plusDays(today, -8), from)
			if windowOnly {
				from = plusDays(today, -txsync.DefaultOverlap)
			}
			for range 2 {
				d, err = s.ApplyCard(t.Context(), k, cardList(all, from, byBooking))
				require.NoError(t, err)
				assert.True(t, d.Empty(), "by booking date %t, from the window's start %t: %v", byBooking, windowOnly, d)
			}
			// An entry the read asked for by both dates and did not get
			// is removed.
			rest := cardList(all, from, byBooking)
			rest.Booked = slices.DeleteFunc(rest.Booked, func(t accounts.CardTransaction) bool { return t.CardTransactionID == "3" })
			d, err = s.ApplyCard(t.Context(), k, rest)
			require.NoError(t, err)
			require.Len(t, d.Removed, 1, "by booking date %t, from the window's start %t", byBooking, windowOnly)
			assert.Equal(t, txsync.BookedGone, d.Removed[0].Reason)
			assert.Equal(t, "-50.00", d.Removed[0].Previous.Amount)
		}
	}
}

// A card purchase pending in the merchant's currency and booked in the
// card's (NOK, the merchant's amount as its original amount) is one
// Change, not one entry added and one removed; also when the pending
// entry carries only the original amount.
func TestCardPendingInMerchantCurrencyBookedInNOK(t *testing.T) {
	eur := money.MustParse("-39.90", "EUR")
	booked := accounts.CardTransaction{Status: accounts.BookingBooked, CardTransactionID: "832319375079",
		TransactionDate: day(t, "2026-03-03"), BookingDate: day(t, "2026-03-05"),
		TransactionAmount: money.MustParse("-452.30", "NOK"), OriginalAmount: &eur, TransactionDetails: "CAFE EXEMPLE PARIS FR"}
	pendingEUR := accounts.CardTransaction{Status: accounts.BookingPending, CardTransactionID: "674912199995",
		TransactionDate: day(t, "2026-03-03"), TransactionAmount: eur, OriginalAmount: &eur, TransactionDetails: "CAFE EXEMPLE PARIS FR"}
	pendingOrigOnly := pendingEUR
	pendingOrigOnly.TransactionAmount = money.Amount{}
	far := money.MustParse("-80.00", "EUR")
	other := booked
	other.OriginalAmount = &far
	for _, c := range []struct {
		name    string
		pending accounts.CardTransaction
		booked  accounts.CardTransaction
		change  bool
	}{
		{"pending in EUR", pendingEUR, booked, true},
		{"pending with the original amount only", pendingOrigOnly, booked, true},
		{"booked for another original amount", pendingEUR, other, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := txsync.New(store.NewMemoryStore())
			require.NoError(t, err)
			l, err := s.Link(t.Context(), "user-1", nil, []accounts.CardAccount{{ResourceID: "c1", MaskedPAN: "552216******4810", Currency: "NOK"}})
			require.NoError(t, err)
			k := l.Accounts[0].Key
			d, err := s.ApplyCard(t.Context(), k, txsync.CardRead{Pending: []accounts.CardTransaction{c.pending}})
			require.NoError(t, err)
			require.Len(t, d.Added, 1)
			key := d.Added[0].Key
			d, err = s.ApplyCard(t.Context(), k, txsync.CardRead{Booked: []accounts.CardTransaction{c.booked}})
			require.NoError(t, err)
			if !c.change {
				assert.Len(t, d.Added, 1)
				assert.Len(t, d.Removed, 1)
				assert.Empty(t, d.Changed)
				return
			}
			assert.Empty(t, d.Added)
			assert.Empty(t, d.Removed)
			require.Len(t, d.Changed, 1)
			ch := d.Changed[0]
			assert.Equal(t, key, ch.Key)
			assert.Equal(t, txsync.Booked|txsync.Amount, ch.What&(txsync.Booked|txsync.Amount))
			assert.Equal(t, accounts.BookingPending, ch.Previous.Status)
			assert.Equal(t, "-452.30", ch.Card.TransactionAmount.Text())
			// Read again: nothing.
			d, err = s.ApplyCard(t.Context(), k, txsync.CardRead{Booked: []accounts.CardTransaction{c.booked}})
			require.NoError(t, err)
			assert.True(t, d.Empty(), "%v", d)
		})
	}
}

// The first read asks for WithFirstReadDays days of history: 30 days
// leave out an entry 40 days old; 365 days, read with the PSU in the hour
// after the SCA, reach an entry 200 days old. Later reads are not
// reported again.
func TestFirstReadDays(t *testing.T) {
	for _, o := range []txsync.Option{txsync.WithFirstReadDays(0), txsync.WithFirstReadDays(-1), txsync.WithFirstReadDays(txsync.MaxFirstReadDays + 1)} {
		_, err := txsync.New(store.NewMemoryStore(), o)
		require.ErrorIs(t, err, txsync.ErrInvalidOption)
	}
	for _, c := range []struct {
		days  int
		added int
	}{{30, 2}, {89, 3}, {365, 4}} {
		clock := startClock()
		start := clock.Now()
		var hist []emulator.SeedTransaction
		for _, ago := range []int{200, 40, 10, 0} {
			hist = append(hist, emulator.SeedTransaction{BookingDate: start.AddDate(0, 0, -ago), Amount: "-100.00", CounterpartyName: "Coop", Remittance: "Coop"})
		}
		b := startBank(t, clock, emulator.SeedCustomer{Accounts: []emulator.SeedAccount{{Balance: "1000.00", Transactions: hist}}})
		s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(clock.Now), txsync.WithFirstReadDays(c.days))
		require.NoError(t, err)
		acct := b.cu.Accounts[0]
		l, err := s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: acct.ID, IBAN: acct.IBAN}}, nil)
		require.NoError(t, err)
		from, err := s.From(t.Context(), l.Accounts[0].Key)
		require.NoError(t, err)
		assert.Equal(t, plusDays(clock.bankToday(), -c.days), from)
		d, err := s.Sync(t.Context(), b.svc, acct.ID, b.present())
		require.NoError(t, err)
		assert.Len(t, d.Added, c.added, "first read of %d days", c.days)
		assert.Equal(t, from, d.From)
		clock.add(12 * time.Hour)
		d, err = s.Sync(t.Context(), b.svc, acct.ID, b.absent())
		require.NoError(t, err)
		assert.True(t, d.Empty(), "%v", d)
	}
}
