package payments_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
)

// Planted in the bank's answers that the errors of this release report
// (CancellationUnconfirmedError, IncompleteAnswerError,
// client.UnexpectedStatusError, client.ValueTooLongError): personal
// data a bank may put anywhere in a body it should not have sent.
const (
	plantedIBAN     = "NO93MARK0001"
	plantedName     = "MARK-NAME-Kari"
	plantedPSU      = "MARK-PSU-01017012345"
	plantedText     = "MARK-TEXT-psu"
	plantedIP       = "203.0.113.77"
	plantedSession  = "MARK-SESSION-9"
	plantedStatusID = "MARK-LONG"
)

var plantedAll = []string{plantedIBAN, plantedName, plantedPSU, plantedText, plantedIP, plantedSession, plantedStatusID}

// plantedBody is a JSON object full of planted values, with extra
// members merged in.
func plantedBody(extra string) string {
	b := `{"debtorAccount":{"iban":"` + plantedIBAN + `"},"creditorName":"` + plantedName + `","psuId":"` + plantedPSU +
		`","psuMessage":"` + plantedText + `","psuIpAddress":"` + plantedIP + `","tppSessionId":"` + plantedSession +
		`","tppMessages":[{"category":"ERROR","code":"` + plantedPSU + `","text":"` + plantedText + `"}]`
	if extra != "" {
		b += "," + extra
	}
	return b + "}"
}

// printedForms are err as every form shows it: its message, the fmt
// verbs, both log/slog handlers and JSON.
func printedForms(t *testing.T, err error) map[string]string {
	t.Helper()
	out := map[string]string{"Error": err.Error()}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		out[verb] = fmt.Sprintf(verb, err)
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Error("x", "err", err, slog.Any("any", err))
	slog.New(slog.NewJSONHandler(&js, nil)).Error("x", "err", err, slog.Any("any", err))
	out["slog text"], out["slog JSON"] = text.String(), js.String()
	b, jerr := json.Marshal(err)
	require.NoError(t, jerr)
	out["JSON"] = string(b)
	return out
}

// TestAnswerErrorsQuoteNoPersonalData: the errors of a bank's answer that
// is not one the interface names (a cancellation's 200, a 202 whose body
// says nothing usable, a read's 204 or 200 without its member, an
// over-long id or status, a start of authorisation's 200) quote nothing
// of the bank's body, in any printed, logged or JSON form.
func TestAnswerErrorsQuoteNoPersonalData(t *testing.T) {
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}
	long := plantedStatusID + strings.Repeat("x", 300)
	for _, tc := range []struct {
		name   string
		method string
		status int
		body   string
		call   func(*payments.Service) error
		target error
	}{
		{"cancel 200", http.MethodDelete, http.StatusOK, plantedBody(`"transactionStatus":"CANC"`), func(s *payments.Service) error {
			_, err := s.Cancel(t.Context(), ref, psuPresent()...)
			return err
		}, payments.ErrCancellationUnconfirmed},
		{"cancel 202 not JSON", http.MethodDelete, http.StatusAccepted, "<p>" + plantedName + " " + plantedIBAN + "</p>", func(s *payments.Service) error {
			_, err := s.Cancel(t.Context(), ref, psuPresent()...)
			return err
		}, payments.ErrCancellationUnconfirmed},
		{"cancel 202 saying nothing", http.MethodDelete, http.StatusAccepted, plantedBody(""), func(s *payments.Service) error {
			_, err := s.CancelAt(t.Context(), self, psuPresent()...)
			return err
		}, payments.ErrCancellationUnconfirmed},
		{"status without transactionStatus", http.MethodGet, http.StatusOK, plantedBody(`"paymentId":"p"`), func(s *payments.Service) error {
			_, err := s.Status(t.Context(), ref, psuPresent()...)
			return err
		}, payments.ErrIncompleteAnswer},
		{"status 204", http.MethodGet, http.StatusNoContent, plantedBody(""), func(s *payments.Service) error {
			_, err := s.Status(t.Context(), ref, psuPresent()...)
			return err
		}, nil},
		{"status over-long", http.MethodGet, http.StatusOK, plantedBody(`"transactionStatus":"` + long + `"`), func(s *payments.Service) error {
			_, err := s.Status(t.Context(), ref, psuPresent()...)
			return err
		}, nil},
		{"status over-long paymentId", http.MethodGet, http.StatusOK, plantedBody(`"transactionStatus":"ACSC","paymentId":"` + long + `"`), func(s *payments.Service) error {
			_, err := s.Status(t.Context(), ref, psuPresent()...)
			return err
		}, nil},
		{"details without paymentId", http.MethodGet, http.StatusOK, plantedBody(""), func(s *payments.Service) error {
			_, err := s.Get(t.Context(), ref, psuPresent()...)
			return err
		}, payments.ErrIncompleteAnswer},
		{"start authorisation 200", http.MethodPost, http.StatusOK, plantedBody(`"scaStatus":"received"`), func(s *payments.Service) error {
			_, err := s.StartAuthorisation(t.Context(), ref, psuPresent()...)
			return err
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			path := self
			switch {
			case strings.HasPrefix(tc.name, "status"):
				path += "/status"
			case strings.HasPrefix(tc.name, "start"):
				path += "/authorisations"
			}
			statusAnswer(tc.method, path, tc.status, tc.body)
			err := tc.call(svc)
			require.Error(t, err)
			t.Log(err)
			if tc.target != nil {
				require.ErrorIs(t, err, tc.target)
			}
			for form, s := range printedForms(t, err) {
				for _, m := range plantedAll {
					assert.NotContains(t, s, m, "%s: %s", form, s)
				}
			}
		})
	}
}
