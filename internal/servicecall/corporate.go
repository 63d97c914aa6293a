package servicecall

import (
	"net/http"
	"strings"

	"github.com/tppkit/psd2/client"
)

// CheckCorporateContext refuses PSU headers the bank refuses together:
// PSU-Context CORPORATE without a PSU-Corporate-ID (docs/interface.md
// section 5.10: in corporate context both PSU-ID and PSU-Corporate-ID are
// set after SCA; section 7: a corporate user without PSU-Corporate-ID gets
// 400), and PSU-Context PRIVATE with one (the psu-corporate-id is the
// corporate context's only, section 6). Each is a *client.ValidationError
// naming the header. A PSU-Corporate-ID without PSU-Context, and a call
// with neither, are left to the bank: the SDK cannot tell the PSU's
// context there. An Operation's Validate calls it with the call's headers.
func CheckCorporateContext(h http.Header) error {
	ctx := client.PSUContext(strings.TrimSpace(h.Get("PSU-Context")))
	corp := strings.TrimSpace(h.Get("PSU-Corporate-ID")) != ""
	switch {
	case ctx == client.Corporate && !corp:
		return &client.ValidationError{Field: "PSU-Corporate-ID", Reason: "required in CORPORATE context (PSU-Context CORPORATE); " +
			"set it with client.WithPSU (CorporateID), or sca.Session.WithCorporate with an agreement of accounts.Service.Agreements"}
	case ctx == client.Private && corp:
		return &client.ValidationError{Field: "PSU-Context", Reason: "PRIVATE with a PSU-Corporate-ID, which belongs to the CORPORATE context only"}
	}
	return nil
}
