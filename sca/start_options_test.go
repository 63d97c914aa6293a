package sca_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
)

// TestStartOptionsRefusedTyped: a start option the bank would refuse (an
// X-PSU-IDENTITY that is empty, too long or holds a control character;
// a PSU-Context or an X-PSU-AuthMethod-Preferred the interface does not
// name) makes Flow.Start fail with a *client.ValidationError naming the
// header, as the client refuses such a header before sending, quoting
// no national identity number. They were plain errors, which
// errors.Is(err, client.ErrValidation) did not tell from a failure of
// the SDK.
func TestStartOptionsRefusedTyped(t *testing.T) {
	t.Parallel()
	f, err := sca.NewFlow("https://tpp.example/psd2/callback")
	require.NoError(t, err)
	for field, opt := range map[string]sca.StartOption{
		"X-PSU-IDENTITY":             sca.WithPSUIdentity("01018012345\n"),
		"X-PSU-IDENTITY ":            sca.WithPSUIdentity(""),
		"X-PSU-IDENTITY  ":           sca.WithPSUIdentity(strings.Repeat("01018012345", 7)),
		"PSU-Context":                sca.WithContext("BUSINESS"),
		"X-PSU-AuthMethod-Preferred": sca.WithAuthMethod("SMS"),
	} {
		p, _, err := f.Start("user-42", opt)
		assert.Nil(t, p, field)
		require.ErrorIs(t, err, client.ErrValidation, field)
		var ve *client.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, strings.TrimSpace(field), ve.Field)
		assert.NotContains(t, err.Error(), "01018012345")
	}
}

// TestWithPurposeRefusedTyped: a purpose WithPurpose does not know (a
// value of another version, PurposeUnknown) makes Flow.Start fail with a
// *client.ValidationError naming the option's field, as the other start
// options do, without quoting the value it was given. It was a plain
// error that errors.Is(err, client.ErrValidation) did not match.
func TestWithPurposeRefusedTyped(t *testing.T) {
	t.Parallel()
	f, err := sca.NewFlow("https://tpp.example/psd2/callback")
	require.NoError(t, err)
	for _, p := range []sca.Purpose{"basket", sca.PurposeUnknown, "consent\n01018012345", sca.Purpose(strings.Repeat("x", 1<<16))} {
		pend, _, err := f.Start("user-42", sca.WithPurpose(p))
		assert.Nil(t, pend)
		require.ErrorIs(t, err, client.ErrValidation)
		var ve *client.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "purpose", ve.Field)
		assert.NotContains(t, err.Error(), "01018012345")
		assert.NotContains(t, err.Error(), "basket")
		assert.Less(t, len(err.Error()), 200)
	}
	for _, p := range []sca.Purpose{sca.PurposeConsent, sca.PurposePayment, sca.PurposeIdentify} {
		_, _, err := f.Start("user-42", sca.WithPurpose(p))
		require.NoError(t, err, p)
	}
}
