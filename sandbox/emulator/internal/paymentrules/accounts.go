package paymentrules

import (
	"unicode/utf8"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// The account references of a payment (docs/interface.md section 2.3a),
// its creditor agent and address.

// domestic reports whether the product pays between Norwegian BBANs.
func (c paymentCheck) domestic() bool {
	return c.product == rules.ProductNDCT || c.product == rules.ProductInstant
}

// creditorAccount checks the creditor's account: a bban of a domestic
// payment, an iban of a SEPA payment, either of a cross-border one, and
// its currency.
func (c paymentCheck) creditorAccount(a *Account, path string) *rules.Violation {
	if a == nil {
		return rules.Format(path, "%s is required.", path)
	}
	switch {
	case c.domestic():
		if e := requiredBBAN(a.BBAN, path+".bban", true); e != nil {
			return e
		}
	case c.product == rules.ProductSEPA:
		if e := requiredIBAN(a.IBAN, path+".iban"); e != nil {
			return e
		}
	default: // cross-border: an IBAN, or a BBAN where the country has none
		if a.IBAN == nil && a.BBAN == nil {
			return rules.Format(path, "%s must hold an iban or a bban.", path)
		}
		if a.IBAN != nil {
			if e := requiredIBAN(a.IBAN, path+".iban"); e != nil {
				return e
			}
		} else if e := requiredBBAN(a.BBAN, path+".bban", false); e != nil {
			return e
		}
	}
	return currencyField(a.Currency, path+".currency")
}

// debtorAccount checks the debtor's account: a bban or a card reference
// (other) of a domestic payment, an iban of a SEPA payment, either an iban
// or a bban of a cross-border one, and its currency.
func (c paymentCheck) debtorAccount(a *Account, path string) *rules.Violation {
	if a == nil {
		return rules.Format(path, "%s is required.", path)
	}
	switch {
	case c.domestic():
		if (a.BBAN == nil) == (a.Other == nil) {
			return rules.Format(path, "%s must hold exactly one of bban and other.", path)
		}
		if a.BBAN != nil {
			if e := requiredBBAN(a.BBAN, path+".bban", true); e != nil {
				return e
			}
		} else if e := cardReference(a.Other, path+".other"); e != nil {
			return e
		}
	case c.product == rules.ProductSEPA:
		if e := requiredIBAN(a.IBAN, path+".iban"); e != nil {
			return e
		}
	default:
		if a.IBAN == nil && a.BBAN == nil {
			return rules.Format(path, "%s must hold an iban or a bban.", path)
		}
		if a.IBAN != nil {
			if e := requiredIBAN(a.IBAN, path+".iban"); e != nil {
				return e
			}
		} else if e := requiredBBAN(a.BBAN, path+".bban", true); e != nil {
			return e
		}
	}
	return currencyField(a.Currency, path+".currency")
}

// cardReference checks the "other" card account reference of an NDCT
// debtorAccount (docs/interface.md section 2.3a).
func cardReference(o *Card, path string) *rules.Violation {
	if e := rules.RequiredText(o.Identification, path+".identification", 1, maxBBANLen*2); e != nil {
		return e
	}
	p := path + ".schemeNameProprietary"
	if o.SchemeNameProprietary == nil {
		return rules.Format(p, "%s is required.", p)
	}
	if *o.SchemeNameProprietary != cardAccountScheme {
		return rules.Format(p, "%s must be %s.", p, cardAccountScheme)
	}
	return nil
}

// creditorAgent checks the BIC; an NDCT to a currency account needs one
// (docs/interface.md section 2.4).
func (c paymentCheck) creditorAgent(b *Body, prefix string) *rules.Violation {
	path := rules.JoinPath(prefix, "creditorAgent")
	if b.CreditorAgent == nil {
		if c.domestic() && b.CreditorAccount != nil && b.CreditorAccount.Currency != nil && *b.CreditorAccount.Currency != "NOK" {
			return rules.Format(path, "%s is required when paying to a currency account.", path)
		}
		return nil
	}
	if !rules.ValidBIC(*b.CreditorAgent) {
		return rules.Format(path, "%s %q is not a BIC.", path, rules.Clip(*b.CreditorAgent))
	}
	return nil
}

// address checks creditorAddress, required but for SEPA: an optional
// street of up to 70 characters and an ISO 3166-1 country code.
func (c paymentCheck) address(a *Address, path string) *rules.Violation {
	if a == nil {
		if c.product == rules.ProductSEPA {
			return nil
		}
		return rules.Format(path, "%s is required.", path)
	}
	if e := rules.OptionalText(a.Street, path+".street", 0, maxNameLen); e != nil {
		return e
	}
	p := path + ".country"
	if a.Country == nil {
		return rules.Format(p, "%s is required.", p)
	}
	if !rules.IsCountry(*a.Country) {
		return rules.Format(p, "%s %q is not an ISO 3166-1 alpha-2 country code.", p, rules.Clip(*a.Country))
	}
	return nil
}

// currencyField checks a required ISO 4217 currency code.
func currencyField(s *string, path string) *rules.Violation {
	if s == nil {
		return rules.Format(path, "%s is required.", path)
	}
	if !money.IsCurrency(*s) {
		return rules.Format(path, "%s %q is not an ISO 4217 currency code.", path, rules.Clip(*s))
	}
	return nil
}

// requiredBBAN checks a bban: 1 to 30 characters (docs/interface.md
// section 2.3a) and, for an account of a domestic payment (norwegian
// true), a Norwegian account number written as 11 digits must carry a
// valid MOD-11 check digit. Any other bban of up to 30 characters is
// accepted as written, as section 2.3a says, spaces and dots included
// ("8601 11 17947"): a creditor the bank cannot reach is the batch's to
// reject, a debtor that is not the PSU's the SCA's.
func requiredBBAN(s *string, path string, norwegian bool) *rules.Violation {
	if s == nil {
		return rules.Format(path, "%s is required.", path)
	}
	if *s == "" {
		return rules.Format(path, "%s must not be empty.", path)
	}
	if utf8.RuneCountInString(*s) > maxBBANLen {
		return rules.Format(path, "%s is longer than %d characters.", path, maxBBANLen)
	}
	if !norwegian {
		return nil
	}
	if len(*s) == 11 && rules.AllDigits(*s) && !rules.ValidNorwegianBBAN(*s) {
		// The text of the platform's answer document for this FORMAT_ERROR
		// (testdata/platform/error-400-format-error.json of package emulator).
		return rules.Format(path, "%s must be 11 digits with a valid MOD11 check digit.", path)
	}
	return nil
}

// requiredIBAN checks an iban: at most 34 characters, the country's length
// and check digits (mod-97), and for Norway the BBAN's MOD-11 digit.
func requiredIBAN(s *string, path string) *rules.Violation {
	if s == nil {
		return rules.Format(path, "%s is required.", path)
	}
	if utf8.RuneCountInString(*s) > maxIBANLen {
		return rules.Format(path, "%s is longer than %d characters.", path, maxIBANLen)
	}
	if !rules.ValidIBAN(*s) {
		return rules.Format(path, "%s is not a valid IBAN (country, length or check digits).", path)
	}
	return nil
}
