package emulator

import (
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// The payment request body as internal/paymentrules decodes and checks it
// (the body schema and the rules it must follow); the emulator stores it
// with the payment and echoes it in the details.
type (
	paymentBody      = paymentrules.Body
	paymentAmount    = paymentrules.Amount
	paymentAccount   = paymentrules.Account
	paymentReference = paymentrules.Reference
)

// Payment products and services of the platform's path table
// (internal/rules).
const (
	productNDCT    = rules.ProductNDCT
	productSEPA    = rules.ProductSEPA
	productCBCT    = rules.ProductCBCT
	productInstant = rules.ProductInstant

	servicePayments = rules.ServicePayments
	servicePeriodic = rules.ServicePeriodic
	serviceBulk     = rules.ServiceBulk
)

// checkPaymentBody decodes and checks a payment request body for service
// and product on the bank's date at now (paymentrules.Check): the decoded
// body, or the 400 answer to the first violation.
func checkPaymentBody(service, product string, body []byte, now time.Time) (*paymentBody, *apiError) {
	b, v := paymentrules.Check(service, product, body, now)
	if v != nil {
		return nil, violation(v)
	}
	return b, nil
}
