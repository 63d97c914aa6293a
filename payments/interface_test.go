package payments_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// newBankAt starts an emulator whose clock, and the SDK's, stand at now.
func newBankAt(t *testing.T, now time.Time) *bank {
	t.Helper()
	clk := testtpp.NewClock(now)
	s := testtpp.Server(t, emulator.WithClock(clk.Now))
	c := testtpp.NewClient(t, s, "Interface rules PISP", client.WithClock(clk.Now),
		client.WithRetryPolicy(client.RetryPolicy{}))
	return bankOn(t, s, c)
}

// agree checks that the SDK refuses p before sending with a validation
// error on path, and that the emulator, sent p WithoutValidation, refuses
// it with code on the same path.
func agree(t *testing.T, b *bank, p *payments.NorwegianDomestic, code, path string) {
	t.Helper()
	_, err := b.svc.CreateNorwegianDomestic(t.Context(), p, b.pisp()...)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, path, ve.Field)

	_, err = b.svc.CreateNorwegianDomestic(t.Context(), p, b.pisp(client.WithoutValidation())...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.NotEmpty(t, e.Messages)
	assert.Equal(t, code, e.Messages[0].Code)
	assert.Equal(t, path, e.Messages[0].Path)
}

// The SDK and the emulator apply the same rules to emoji inside the Basic
// Multilingual Plane, withdrawn currencies and bbans (docs/interface.md
// sections 1.6, 2.1, 2.3a, 7): a bban is refused only for more than 30
// characters or 11 digits with a wrong MOD-11 digit; the printed form is
// taken as written by both.
func TestSDKAndEmulatorAgreeOnInterfaceRules(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	for _, tc := range []struct {
		name string
		edit func(*payments.NorwegianDomestic)
		path string
	}{
		{"U+2705 in remittance", func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = "Betalt \u2705" }, "remittanceInformationUnstructured"},
		{"U+2615 in creditorName", func(p *payments.NorwegianDomestic) { p.CreditorName = "Kaffe \u2615" }, "creditorName"},
		{"U+2764 in street", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Street = "Gate \u2764" }, "creditorAddress.street"},
		{"creditor account in ANG (withdrawn 2025)", func(p *payments.NorwegianDomestic) {
			p.CreditorAccount.Currency = "ANG"
			p.CreditorAgent = "DNBANOKK"
		}, "creditorAccount.currency"},
		{"creditor bban with a wrong MOD-11 digit", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "86011117948" }, "creditorAccount.bban"},
		{"creditor bban of 31 characters", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = strings.Repeat("8", 31) }, "creditorAccount.bban"},
		{"debtor bban with a wrong MOD-11 digit", func(p *payments.NorwegianDomestic) { p.DebtorAccount.BBAN = "95312776067" }, "debtorAccount.bban"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ndct(kariBruk, "5.00")
			tc.edit(p)
			agree(t, b, p, client.CodeFormatError, tc.path)
		})
	}
	assert.Empty(t, b.paymentsHeld())

	// What both accept: XCG (ISO 4217 since 2025), the normalised bban,
	// and every other bban notation of up to 30 characters, sent as
	// written. The SDK's validation runs on each (no WithoutValidation),
	// and the emulator answers 201 with the bban unchanged.
	p := ndct(kariBruk, "5.00")
	p.CreditorAccount.Currency = "XCG"
	p.CreditorAgent = "DNBANOKK"
	_, err := b.svc.CreateNorwegianDomestic(t.Context(), p, b.pisp()...)
	require.NoError(t, err)
	p = ndct(kariBruk, "6.00")
	p.CreditorAccount.BBAN = payments.NormalizeBBAN("9102 65 27436")
	_, err = b.svc.CreateNorwegianDomestic(t.Context(), p, b.pisp()...)
	require.NoError(t, err)
	accepted := []string{"8601 11 17947", "8601.11.17947", "9102-65-27436", "8601 11 17948", strings.Repeat("8", 30)}
	for i, bban := range accepted {
		p = ndct(kariBruk, strconv.Itoa(7+i)+".00")
		p.CreditorAccount.BBAN = bban
		init, err := b.svc.CreateNorwegianDomestic(t.Context(), p, b.pisp()...)
		require.NoError(t, err, bban)
		require.NotEmpty(t, init.PaymentID, bban)
	}
	assert.Len(t, b.paymentsHeld(), 2+len(accepted))
}

// Just after midnight in Oslo (summer and winter, fixed clocks), both
// sides count today as the Oslo date: yesterday's date is refused by both,
// and today's is accepted and, once signed, due at once (ACTC, not PDNG).
func TestSDKAndEmulatorAgreeOnTodayInOslo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		now   time.Time // 00:30 in Oslo, still the day before in UTC
		today date.Date
	}{
		{"winter", time.Date(2026, 1, 15, 23, 30, 0, 0, time.UTC), date.Date{Year: 2026, Month: 1, Day: 16}},
		{"summer", time.Date(2026, 7, 1, 22, 30, 0, 0, time.UTC), date.Date{Year: 2026, Month: 7, Day: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBankAt(t, tc.now)
			yesterday := date.Of(tc.now) // the UTC date
			require.NotEqual(t, tc.today, yesterday)

			p := ndct(kariBruk, "5.00")
			p.RequestedExecutionDate = yesterday
			agree(t, b, p, client.CodeExecutionDateInvalid, "requestedExecutionDate")

			p.RequestedExecutionDate = tc.today
			init, err := b.svc.CreateNorwegianDomestic(t.Context(), p, b.pisp()...)
			require.NoError(t, err)
			b.authorize(t, init.SCARedirect())
			st, err := b.svc.Status(t.Context(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: init.PaymentID}, b.pisp()...)
			require.NoError(t, err)
			assert.Equal(t, payments.StatusACTC, st.TransactionStatus, "due today in Oslo")
		})
	}
}
