package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tppkit/psd2/client"
)

// A customer name with an emoji, in the Basic Multilingual Plane or not,
// is refused before sending (docs/interface.md sections 1.6 and 7).
func TestCustomerNameRefusesPictographs(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Kari \u2705", "Kari \u2615", "Kari \u2764", "Kari \U0001F600"} {
		n := &NewCustomer{CustomerNumber: "13039319955", CustomerType: client.Private, CustomerName: name}
		assert.ErrorContains(t, n.validate(), "cannot process", name)
	}
	n := &NewCustomer{CustomerNumber: "13039319955", CustomerType: client.Private, CustomerName: "Kåre Ødegård"}
	assert.NoError(t, n.validate())
}
