package sca

import "github.com/tppkit/psd2/client"

// AuthMethod is a value of X-PSU-AuthMethod-Preferred: the SCA method the
// bank jumps to when the PSU has it (docs/interface.md section 5.11).
type AuthMethod string

// The SCA methods of docs/interface.md section 5.11.
//
// docs/interface.md writes the two provider-branded methods as <EID_MOBILE_METHOD>
// and <BANK_ID_METHOD> without their values, and no public documentation of
// the platform spells them out. AuthMethodBankIDMobile and AuthMethodBankID
// are therefore ASSUMED values: "BANKID_MOBIL" for BankID on mobile and
// "BANKID" for the BankID app / code device, the same in the client's list
// (client.WithAuthMethodPreferred) and the emulator's. Any other value is
// refused before a call is sent.
const (
	// AuthMethodApp is the bank's one-time-code app with biometrics.
	AuthMethodApp AuthMethod = "ENGANGSKODEAPP_BIOMETRI"
	// AuthMethodHA2 is the HA2 method (code device / SMS based).
	AuthMethodHA2 AuthMethod = "HA2"
	// AuthMethodBankIDMobile is BankID on mobile (<EID_MOBILE_METHOD>;
	// assumed value).
	AuthMethodBankIDMobile AuthMethod = "BANKID_MOBIL"
	// AuthMethodBankID is BankID (<BANK_ID_METHOD>; assumed value).
	AuthMethodBankID AuthMethod = "BANKID"
)

// validate refuses a method the interface does not list with a
// *client.ValidationError: the client would refuse it too
// (client.WithAuthMethodPreferred), and so does the bank.
func (m AuthMethod) validate() error {
	switch m {
	case AuthMethodApp, AuthMethodHA2, AuthMethodBankIDMobile, AuthMethodBankID:
		return nil
	}
	return &client.ValidationError{Field: "X-PSU-AuthMethod-Preferred", Reason: "not one of the methods of docs/interface.md section 5.11"}
}
