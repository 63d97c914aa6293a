package sca

import "errors"

// AuthMethod is a value of X-PSU-AuthMethod-Preferred: the SCA method the
// bank jumps to when the PSU has it (docs/interface.md section 5.11).
type AuthMethod string

// The SCA methods of docs/interface.md section 5.11.
//
// docs/interface.md writes the two provider-branded methods as <EID_MOBILE_METHOD>
// and <BANK_ID_METHOD> without their values, and no public documentation of
// the platform spells them out. AuthMethodBankIDMobile and AuthMethodBankID
// are therefore ASSUMED values, kept here and nowhere else: "BANKID_MOBIL"
// for BankID on mobile and "BANKID" for the BankID app / code device. Any
// other string can be sent as AuthMethod("...") if a bank documents it.
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

func (m AuthMethod) validate() error {
	if m == "" || len(m) > 64 {
		return errors.New("sca: invalid X-PSU-AuthMethod-Preferred")
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return errors.New("sca: invalid X-PSU-AuthMethod-Preferred")
		}
	}
	return nil
}
