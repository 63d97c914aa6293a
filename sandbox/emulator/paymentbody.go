package emulator

import (
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
)

// checkPaymentBody decodes and checks a payment request body for service
// and product on the bank's date at now (paymentrules.Check): the decoded
// body, or the 400 answer to the first violation.
func checkPaymentBody(service, product string, body []byte, now time.Time) (*paymentrules.Body, *apiError) {
	b, v := paymentrules.Check(service, product, body, now)
	if v != nil {
		return nil, violation(v)
	}
	return b, nil
}
