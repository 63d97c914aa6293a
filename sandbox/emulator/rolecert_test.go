package emulator

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetRolesRefusesNoTPPCertificate: the control set-roles took any
// certificate that parsed, answered 200 and kept roles for it: the
// emulator's CA certificate, one expired at the emulator's clock, one not
// yet valid, one of a TPP the bank does not know. None names a TPP whose
// requests the roles could govern; each is now refused with why (400),
// and nothing is kept. The registered TPP's certificate, and a renewal of
// it (another certificate with its organizationIdentifier, valid now),
// are taken.
func TestSetRolesRefusesNoTPPCertificate(t *testing.T) {
	t.Parallel()
	// The emulator's clock runs two hours ahead of the real time.
	ahead := 2 * time.Hour
	s := startServer(t, WithClock(func() time.Time { return time.Now().Add(ahead) }))
	tppc := newTPPClient(t, s, "Role TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	registered := tppc.creds.Certificate
	now := time.Now() // the real time

	// issue makes a certificate of subject (the registered TPP's when
	// zero), valid from notBefore to notAfter, signed by a key of its own.
	issue := func(subject pkix.Name, notBefore, notAfter time.Time, ca bool) *x509.Certificate {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: subject, NotBefore: notBefore, NotAfter: notAfter,
			KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: ca, IsCA: ca}
		if ca {
			tmpl.KeyUsage |= x509.KeyUsageCertSign
		}
		if subject.CommonName == "" {
			tmpl.RawSubject = registered.RawSubject // its organizationIdentifier too
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
		require.NoError(t, err)
		cert, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		return cert
	}
	stranger := pkix.Name{Country: []string{"NO"}, CommonName: "Stranger TPP",
		ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: "PSDNO-FSA-999999999"}}}
	require.Equal(t, tppIdentity(registered), tppIdentity(issue(pkix.Name{}, now, now.Add(time.Hour), false)), "the TPP's name, its organizationIdentifier too")
	cases := []struct {
		name string
		cert *x509.Certificate
		code string
		says string
	}{
		{"the emulator's CA", s.CACertificate(), "BAD_ARGUMENTS", "is a CA certificate"},
		{"a CA certificate with the TPP's name", issue(pkix.Name{}, now.Add(-time.Hour), now.Add(365*24*time.Hour), true), "BAD_ARGUMENTS", "is a CA certificate"},
		{"the TPP's, expired", issue(pkix.Name{}, now.AddDate(-2, 0, 0), now.AddDate(-1, 0, 0), false), "BAD_ARGUMENTS", "not valid at the emulator's time"},
		{"the TPP's, valid by the real time but expired at the emulator's clock", issue(pkix.Name{}, now.Add(-time.Hour), now.Add(time.Hour), false), "BAD_ARGUMENTS", "not valid at the emulator's time"},
		{"the TPP's, not yet valid", issue(pkix.Name{}, now.Add(30*24*time.Hour), now.Add(365*24*time.Hour), false), "BAD_ARGUMENTS", "not valid at the emulator's time"},
		{"a TPP the bank does not know", issue(stranger, now.Add(-time.Hour), now.Add(365*24*time.Hour), false), "UNKNOWN_TPP", "names no TPP of the bank"},
	}
	rolesOf := func(c *x509.Certificate) (Role, bool) {
		s.mu.RLock()
		defer s.mu.RUnlock()
		r, ok := s.scn.roles[tppIdentity(c)]
		return r, ok
	}
	setRoles := func(c *x509.Certificate, role string) (int, map[string]any) {
		return ctl.call(http.MethodPost, "set-roles", fmt.Sprintf(`{"roles":[%q],"tpp":%q}`, role, base64.StdEncoding.EncodeToString(c.Raw)))
	}
	for _, c := range cases {
		status, body := setRoles(c.cert, "PISP")
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", c.name, body)
		assert.Equal(t, c.code, body["code"], c.name)
		assert.Contains(t, body["error"], c.says, c.name)
		_, kept := rolesOf(c.cert)
		assert.False(t, kept, "%s: no roles kept", c.name)
	}

	// The registered certificate, by name and as the bank's only TPP.
	status, body := setRoles(registered, "PISP")
	require.Equal(t, http.StatusOK, status, body)
	r, _ := rolesOf(registered)
	assert.Equal(t, RolePISP, r)
	status, body = ctl.call(http.MethodPost, "set-roles", `{"roles":["AISP"]}`)
	require.Equal(t, http.StatusOK, status, body)
	r, _ = rolesOf(registered)
	assert.Equal(t, RoleAISP, r)
	// A renewal: the TPP's organizationIdentifier on a certificate valid
	// at the emulator's clock, not itself registered, is the same TPP.
	renewal := issue(pkix.Name{}, now.Add(-time.Hour), now.Add(365*24*time.Hour), false)
	status, body = setRoles(renewal, "PISP")
	require.Equal(t, http.StatusOK, status, body)
	r, _ = rolesOf(registered)
	assert.Equal(t, RolePISP, r, "the registered TPP's roles")
}
