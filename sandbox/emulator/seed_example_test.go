package emulator_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// ExampleControls_Seed seeds a thousand PSUs with an account each and a
// consent given yesterday, then refreshes one account's balances the way
// a background job does: with the seeded session's PSU-ID and
// TPP-Session-ID, without the PSU present and without any SCA.
func ExampleControls_Seed() {
	s := emulator.NewServer()
	defer s.Close()
	creds, err := s.NewTPP("Example AISP")
	if err != nil {
		panic(err)
	}

	history := []emulator.SeedTransaction{
		{BookingDate: time.Now().AddDate(0, 0, -2), Amount: "32500.00", CounterpartyName: "Testfirma Nord AS"},
		{BookingDate: time.Now().AddDate(0, 0, -1), Amount: "-389.40", Remittance: "MATBUTIKKEN"},
	}
	consent := &emulator.SeedConsent{At: time.Now().Add(-24 * time.Hour)}
	data := emulator.SeedData{Customers: make([]emulator.SeedCustomer, 1000)}
	for i := range data.Customers {
		data.Customers[i] = emulator.SeedCustomer{
			Accounts: []emulator.SeedAccount{{Balance: "1000.00", Transactions: history}},
			Consent:  consent, // shared: Seed only reads it
		}
	}
	res, err := s.Control().Seed(context.Background(), creds.Certificate, data)
	if err != nil {
		panic(err)
	}
	psu := res.Customers[42]
	fmt.Println(len(res.Customers), psu.Context, psu.Session.ConsentExpiresAt.Sub(psu.Session.SCAAt))

	signer, err := signing.NewSigner(creds.Key, signing.KeyID(creds.Certificate))
	if err != nil {
		panic(err)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/accounts/"+psu.Accounts[0].ID+"/balances", nil)
	req.Header.Set("X-Request-ID", uuid.NewString())
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(creds.Certificate.Raw))
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example/callback")
	req.Header.Set("PSU-ID", psu.Session.PSUID)
	req.Header.Set("TPP-Session-ID", psu.Session.TPPSessionID)
	if err := signer.Sign(req); err != nil {
		panic(err)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var body struct {
		Balances []struct {
			BalanceAmount struct{ Amount string } `json:"balanceAmount"`
			BalanceType   string                  `json:"balanceType"`
		} `json:"balances"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	fmt.Println(resp.StatusCode, body.Balances[0].BalanceType, body.Balances[0].BalanceAmount.Amount)
	// Output:
	// 1000 PRIVATE 2160h0m0s
	// 200 closingBooked 1000.00
}
