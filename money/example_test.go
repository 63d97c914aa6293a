package money_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tppkit/psd2/money"
)

// ExampleParse writes amounts with exactly their currency's ISO 4217 minor
// units and refuses more digits instead of rounding.
func ExampleParse() {
	for _, in := range [][2]string{{"150", "NOK"}, {"5", "JPY"}, {"1.25", "KWD"}, {"0.0001", "CLF"}} {
		a, err := money.Parse(in[0], in[1])
		if err != nil {
			panic(err)
		}
		b, _ := json.Marshal(a)
		fmt.Println(string(b))
	}
	_, err := money.Parse("150.001", "NOK")
	fmt.Println(errors.Is(err, money.ErrTooManyDigits))
	// Output:
	// {"amount":"150.00","currency":"NOK"}
	// {"amount":"5","currency":"JPY"}
	// {"amount":"1.250","currency":"KWD"}
	// {"amount":"0.0001","currency":"CLF"}
	// true
}
