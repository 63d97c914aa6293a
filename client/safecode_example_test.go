package client_test

import (
	"fmt"

	"github.com/tppkit/psd2/client"
)

// What a bank puts in a tppMessage code field is kept only when it is one
// of the interface's codes; anything else is "OTHER".
func ExampleSafeCode() {
	fmt.Println(client.SafeCode(client.CodeConsentUnknown))
	fmt.Println(client.SafeCode("01017012345")) // a national identity number in the code field
	// Output:
	// CONSENT_UNKNOWN
	// OTHER
}
