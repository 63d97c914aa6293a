package payments_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// creates are the five ways to create a payment, each with a body the
// bank of the mock tests accepts.
func creates() map[string]func(*payments.Service, *testing.T, ...client.RequestOption) error {
	return map[string]func(*payments.Service, *testing.T, ...client.RequestOption) error{
		"CreateNorwegianDomestic": func(s *payments.Service, t *testing.T, ro ...client.RequestOption) error {
			_, err := s.CreateNorwegianDomestic(t.Context(), validNDCT(), ro...)
			return err
		},
		"CreateSEPA": func(s *payments.Service, t *testing.T, ro ...client.RequestOption) error {
			_, err := s.CreateSEPA(t.Context(), validSEPA(), ro...)
			return err
		},
		"Create": func(s *payments.Service, t *testing.T, ro ...client.RequestOption) error {
			_, err := s.Create(t.Context(), payments.ProductCrossBorder, map[string]string{"creditorName": "X"}, ro...)
			return err
		},
		"CreatePeriodic": func(s *payments.Service, t *testing.T, ro ...client.RequestOption) error {
			_, err := s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, map[string]string{"startDate": "2025-03-17", "frequency": "Monthly"}, ro...)
			return err
		},
		"CreateBulk": func(s *payments.Service, t *testing.T, ro ...client.RequestOption) error {
			_, err := s.CreateBulk(t.Context(), payments.ProductInstantNorwegianDomestic, map[string]string{"x": "y"}, ro...)
			return err
		},
	}
}

// validationErrors returns every *client.ValidationError in err's tree.
func validationErrors(err error) []*client.ValidationError {
	var out []*client.ValidationError
	var walk func(error)
	walk = func(err error) {
		if ve, ok := err.(*client.ValidationError); ok {
			out = append(out, ve)
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			if e := u.Unwrap(); e != nil {
				walk(e)
			}
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}

// A payment's creation without one of the headers docs/interface.md
// sections 4.1 to 4.3 require is refused before anything is sent, with a
// *client.ValidationError naming the header and the option that sets it,
// for every product and service, and even WithoutValidation.
func TestCreateRequiresHeaders(t *testing.T) {
	session := client.WithTPPSessionID(sessionID)
	context := client.WithPSUContext(client.Private)
	for _, tc := range []struct {
		name     string
		defaults []client.Option // client options: the redirect URI
		ro       []client.RequestOption
		field    string
		option   string
	}{
		{"no PSU-ID", withRedirect(), []client.RequestOption{session, context, client.WithPSU(client.PSU{IPAddress: psuIP})},
			"PSU-ID", "client.WithPSU (ID)"},
		{"no PSU-IP-Address", withRedirect(), []client.RequestOption{session, context, client.WithPSU(client.PSU{ID: psuID})},
			"PSU-IP-Address", "client.WithPSU (IPAddress)"},
		{"no TPP-Session-ID", withRedirect(), []client.RequestOption{context, client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP})},
			"TPP-Session-ID", "client.WithTPPSessionID"},
		// The client has no default redirect URI here.
		{"no TPP-Redirect-URI", nil, []client.RequestOption{session, context, client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP})},
			"TPP-Redirect-URI", "client.WithRedirectURI"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := tc.ro
			svc, err := payments.New(mockClient(t, tc.defaults...))
			require.NoError(t, err)
			httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusCreated, `{"paymentId":"p1","transactionStatus":"RCVD"}`))
			for name, create := range creates() {
				for _, skip := range []bool{false, true} {
					opts := ro
					if skip {
						opts = append(append([]client.RequestOption(nil), ro...), client.WithoutValidation())
					}
					err := create(svc, t, opts...)
					require.ErrorIs(t, err, client.ErrNotSent, name)
					require.ErrorIs(t, err, client.ErrValidation, name)
					var ns *client.NotSentError
					require.ErrorAs(t, err, &ns, name)
					assert.Equal(t, "payments."+name, ns.Operation)
					var ve *client.ValidationError
					require.ErrorAs(t, err, &ve, name)
					assert.Equal(t, tc.field, ve.Field, name)
					assert.Contains(t, ve.Reason, tc.option, name)
					assert.Contains(t, ve.Reason, "payments."+name, name)
					assert.Len(t, validationErrors(err), 1, "%s: only %s is missing", name, tc.field)
				}
			}
			assert.Zero(t, httpmock.GetTotalCallCount(), "nothing is sent")
		})
	}
}

// A payment's creation without PSU-Context is sent, for every product and
// service: the interface lists the header as optional (docs/interface.md
// section 4.2), and the platform was recorded creating a payment without
// it. The SDK sends no PSU-Context it was not given.
func TestCreateWithoutPSUContextIsSent(t *testing.T) {
	svc, err := payments.New(mockClient(t, withRedirect()...))
	require.NoError(t, err)
	var sent []*http.Request
	httpmock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		sent = append(sent, req)
		return httpmock.NewStringResponse(http.StatusCreated, `{"paymentId":"p1","transactionStatus":"RCVD"}`), nil
	})
	ro := []client.RequestOption{client.WithTPPSessionID(sessionID), client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP})}
	for name, create := range creates() {
		require.NoError(t, create(svc, t, ro...), name)
	}
	require.Len(t, sent, len(creates()))
	for _, req := range sent {
		assert.Empty(t, req.Header.Values("PSU-Context"), req.URL.Path)
	}
}

// Every missing header is reported at once, each naming its option; with
// them all, the same call is sent.
func TestCreateReportsEveryMissingHeader(t *testing.T) {
	svc := newMockService(t)
	got := respond(t, http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")

	_, err := svc.CreateNorwegianDomestic(t.Context(), validNDCT())
	require.ErrorIs(t, err, client.ErrNotSent)
	fields := map[string]string{}
	for _, ve := range validationErrors(err) {
		fields[ve.Field] = ve.Reason
	}
	require.Len(t, fields, 3, "%v", err)
	assert.Contains(t, fields["PSU-ID"], "client.WithPSU")
	assert.Contains(t, fields["PSU-IP-Address"], "client.WithPSU")
	assert.Contains(t, fields["TPP-Session-ID"], "client.WithTPPSessionID")
	assert.NotContains(t, fields, "PSU-Context", "PSU-Context is optional (docs/interface.md section 4.2)")
	assert.Nil(t, got.req)
	assert.Zero(t, httpmock.GetTotalCallCount())

	// A payment that is also invalid is refused for the headers first:
	// nothing about the call is right.
	p := validNDCT()
	p.CreditorName = ""
	_, err = svc.CreateNorwegianDomestic(t.Context(), p, client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP}))
	require.ErrorIs(t, err, client.ErrValidation)
	fields = map[string]string{}
	for _, ve := range validationErrors(err) {
		fields[ve.Field] = ve.Reason
	}
	assert.Contains(t, fields, "TPP-Session-ID")
	assert.NotContains(t, fields, "creditorName", "the body is checked once the headers are there")
	assert.Zero(t, httpmock.GetTotalCallCount())

	init, err := svc.CreateNorwegianDomestic(t.Context(), validNDCT(), psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, ndctID, init.PaymentID)
	assert.Equal(t, 1, httpmock.GetTotalCallCount())
}

// New refuses a nil client and invalid polling; a Service made without
// New refuses every call without sending it.
func TestNewRefusesNilClientAndBadOptions(t *testing.T) {
	svc, err := payments.New(nil)
	require.Error(t, err)
	assert.Nil(t, svc)

	c := mockClient(t)
	for name, opt := range map[string]payments.Option{
		"min 0":       payments.WithPolling(0, 1),
		"negative":    payments.WithPolling(-1, 1),
		"max < min":   payments.WithPolling(2, 1),
		"max < min 2": payments.WithPolling(2e9, 1e9),
	} {
		svc, err := payments.New(c, opt)
		assert.Error(t, err, name)
		assert.Nil(t, svc, name)
	}
	svc, err = payments.New(c, payments.WithPolling(1, 1), nil)
	require.NoError(t, err)
	assert.NotNil(t, svc)

	var zero payments.Service
	_, err = zero.CreateNorwegianDomestic(t.Context(), validNDCT(), psuPresent()...)
	require.Error(t, err)
	_, err = zero.Wait(t.Context(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: "p1"})
	require.Error(t, err)
	assert.False(t, errors.Is(err, client.ErrOutcomeUnknown))
	assert.Zero(t, httpmock.GetTotalCallCount())
}

// withRedirect are the client options that send the test redirect URI on
// every call.
func withRedirect() []client.Option {
	return []client.Option{client.WithDefaults(client.WithRedirectURI(redirectURI))}
}
