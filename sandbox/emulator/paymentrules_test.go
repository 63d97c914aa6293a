package emulator

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules/paymentrulestest"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// The payment bodies of the tests are those of paymentrulestest, shared
// with the unit tests of the rules (internal/paymentrules): the tests here
// send them over the wire.
type (
	// body is a JSON object that a test edits.
	body = paymentrulestest.Body
	// bodyCase is one payment body and the violation it must give.
	bodyCase = paymentrulestest.Case
)

var (
	validNDCT     = paymentrulestest.ValidNDCT
	validSEPA     = paymentrulestest.ValidSEPA
	validPeriodic = paymentrulestest.ValidPeriodic
	validBulk     = paymentrulestest.ValidBulk
	set           = paymentrulestest.Set
	del           = paymentrulestest.Del
	setPath       = paymentrulestest.SetPath
	// bodyCases are every rule of a payment body, with the answer's code
	// and path.
	bodyCases = paymentrulestest.Cases
	// checkToday is the instant the body cases are checked at.
	checkToday = paymentrulestest.Today
)

// problem is what a rejection is compared on.
type problem struct {
	Status int
	Code   string
	Path   string
}

// A bban in printed form, or any other notation of up to 30 characters,
// is created (201) as written, as the SDK's validation lets it through;
// 11 digits with a wrong MOD-11 digit and 31 characters are refused.
func TestPrintedBBANIsCreatedAsWritten(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Printed BBAN TPP")
	for i, bban := range []string{"8601 11 17947", "8601.11.17947", "NO-ACCT 8601/11/17947"} {
		c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, bban, fmt.Sprintf("%d.00", 20+i)))
	}
	// Refused by section 2.3a: a wrong MOD-11 digit, more than 30 characters.
	for _, bban := range []string{"86011117948", strings.Repeat("8", 31)} {
		r := c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, bban, "30.00"), c.payHeaders()...)
		assert.Equal(t, http.StatusBadRequest, r.status, bban)
		assert.Contains(t, string(r.body), "creditorAccount.bban", bban)
	}
}
