package payments

// CardDebtor returns the debtorAccount of an NDCT that pays from a card
// account (docs/interface.md section 2.3a): Other with the card account's
// relatedAccount as Identification and [SchemeCreditCardAccount], and the
// card account's currency. relatedAccount is the reference the card
// account details carry; with the accounts package it is
// CardAccount.RelatedAccountID():
//
//	card, err := ais.CardAccount(ctx, cardID, opts...)
//	// ...
//	p.DebtorAccount = payments.CardDebtor(card.RelatedAccountID(), card.Currency)
//
// The card's resourceId or masked PAN do not identify it as a debtor. An
// empty relatedAccount (a bank that sent none) gives a reference that
// [NorwegianDomestic.Validate] refuses, so nothing is sent. Only an NDCT
// can have a card account as debtor.
func CardDebtor(relatedAccount, currency string) AccountReference {
	return AccountReference{
		Other:    &OtherAccount{Identification: relatedAccount, SchemeNameProprietary: SchemeCreditCardAccount},
		Currency: currency,
	}
}
