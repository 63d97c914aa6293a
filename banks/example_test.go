package banks_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
)

func ExampleDirectory_Lookup() {
	b, ok := banks.Default().Lookup("sor")
	fmt.Println(ok, b.Name, b.Group)
	fmt.Println(b.Production)
	fmt.Println(b.Sandbox)
	fmt.Println(b.ConsentValidity())
	// Output:
	// true Sparebanken Sør other
	// https://openbanking.sor.no/api
	// https://openbanking.sor.no/api-sandbox
	// 2160h0m0s
}

func ExampleLoad() {
	dir, err := os.MkdirTemp("", "banks")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	// The TPP's own file: a bank that moved to 180-day consents, and a new one.
	own := filepath.Join(dir, "banks.json")
	_ = os.WriteFile(own, []byte(`{"banks":[
	 {"id":"sbm","name":"Sparebanken Møre","group":"other","production":"https://openbanking.sbm.no/api","sandbox":"https://openbanking.sbm.no/api-sandbox","consentDays":180,"source":"bank's notice to TPPs","verified":"2026-10-01"},
	 {"id":"nybank","name":"Ny Bank","group":"other","production":"https://psd2.nybank.example/api","sandbox":"https://psd2.nybank.example/api-sandbox","source":"contract","verified":"2026-11-01"}]}`), 0o600)
	d, err := banks.Load(own)
	if err != nil {
		fmt.Println(err)
		return
	}
	sbm, _ := d.Lookup("sbm")
	_, added := d.Lookup("nybank")
	fmt.Println(sbm.ConsentValidity(), added, d.Len()-banks.Default().Len())
	// Output: 4320h0m0s true 1
}

// Two banks of the emulator, one client each from one set of credentials.
func ExampleDirectory_Clients() {
	m, err := emulator.NewMultiBank([]string{"alfa.localhost", "beta.localhost"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	creds, _ := m.NewTPP("Example TPP")
	d, err := banks.Parse([]byte(fmt.Sprintf(`{"banks":[
	 {"id":"alfa","name":"Alfa","group":"other","production":"https://psd2.alfa.example/api","sandbox":%[1]q,"source":"emulator","verified":"2026"},
	 {"id":"beta","name":"Beta","group":"other","production":"https://psd2.beta.example/api","sandbox":%[2]q,"source":"emulator","verified":"2026"}]}`,
		m.URL("alfa.localhost"), m.URL("beta.localhost"))))
	if err != nil {
		fmt.Println(err)
		return
	}
	cs, err := d.Clients(banks.Sandbox, creds, []string{"alfa", "beta"}, client.WithHTTPClient(m.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, id := range []string{"alfa", "beta"} {
		sb, _ := sandbox.New(cs[id])
		list, err := sb.Customers(context.Background(), nil)
		fmt.Println(id, len(list), err)
	}
	fmt.Println(cs["alfa"].Scope() != cs["beta"].Scope(), cs["alfa"].Bank())
	// Output:
	// alfa 4 <nil>
	// beta 4 <nil>
	// true bank:banks/alfa/sandbox
}
