package emulator

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlAPIGrantAgreementNamesItsField: grant-agreement refuses an
// unknown agreement or customer number naming the argument, as every
// other control's refusal does (docs/emulator.md, "A refusal names its
// field"); it answered "emulator: GrantAgreement: unknown agreement",
// which named neither agreementId nor customerNumber.
func TestControlAPIGrantAgreementNamesItsField(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Grant TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	var agreement string
	for _, cu := range listCustomers(t, c) {
		if cu.CustomerNumber == CustomerFjordlys {
			agreement = cu.Agreements[0].ID
		}
	}
	require.NotEmpty(t, agreement)
	for _, tc := range []struct{ body, field string }{
		{`{"agreementId":"...","customerNumber":"` + CustomerKari + `"}`, "agreementId: "},
		{`{"customerNumber":"` + CustomerKari + `"}`, "agreementId: "},
		{`{"agreementId":"` + agreement + `","customerNumber":"99999999999"}`, "customerNumber: "},
	} {
		status, body := ctl.call(http.MethodPost, "grant-agreement", tc.body)
		assert.Equal(t, http.StatusNotFound, status, "%s: %v", tc.body, body)
		assert.Equal(t, "UNKNOWN", body["code"], tc.body)
		if msg, _ := body["error"].(string); assert.NotEmpty(t, msg, tc.body) {
			assert.Regexp(t, "^"+tc.field, msg, tc.body)
		}
	}
	status, body := ctl.call(http.MethodPost, "grant-agreement", `{"agreementId":"`+agreement+`","customerNumber":"`+CustomerKari+`"}`)
	assert.Equal(t, http.StatusOK, status, body)
}
