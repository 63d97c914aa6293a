package basket

import (
	"strconv"

	"github.com/tppkit/psd2/client"
)

// TooManyPaymentsError is a basket answer that lists more payments than
// a basket holds ([MaxPayments], docs/interface.md sections 2.7 and 8):
// refused, as the SDK refuses an answer's value beyond its bounds, so
// that no basket of more payments reaches its caller (whose
// [Service.PaymentStatuses] would send a call for each). It quotes none
// of the ids, and matches [client.ErrValueTooLong].
type TooManyPaymentsError struct {
	// Field is the answer's member, "paymentIds" or "payments".
	Field string
	// Count is the number of ids the answer lists; Max is MaxPayments.
	Count, Max int
}

func (e *TooManyPaymentsError) Error() string {
	return "basket: the answer's " + e.Field + " lists " + strconv.Itoa(e.Count) + " payments; a basket holds at most " + strconv.Itoa(e.Max)
}

// Is matches [client.ErrValueTooLong].
func (e *TooManyPaymentsError) Is(target error) bool { return target == client.ErrValueTooLong }
