package sandbox_test

import (
	"context"
	"fmt"
	"sort"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// Reset the sandbox to its default data and list the customers a PSU can
// log in as at the sandbox SCA page.
func Example() {
	ctx := context.Background()
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	sb, err := sandbox.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}

	if err := sb.Initialize(ctx); err != nil {
		fmt.Println(err)
		return
	}
	customers, err := sb.Customers(ctx, &sandbox.CustomersQuery{WithAccounts: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	sort.Slice(customers, func(i, j int) bool { return customers[i].CustomerNumber < customers[j].CustomerNumber })
	for _, cu := range customers {
		fmt.Printf("%s %-9s %d accounts, %d card accounts\n", cu.CustomerNumber, cu.CustomerType, len(cu.Accounts), len(cu.CardAccounts))
	}
	// Output:
	// 12085592767 PRIVATE   2 accounts, 1 card accounts
	// 13039319955 PRIVATE   2 accounts, 1 card accounts
	// 18129215603 CORPORATE 2 accounts, 0 card accounts
	// 20079518612 CORPORATE 2 accounts, 0 card accounts
}
