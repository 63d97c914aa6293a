package basket

import (
	"errors"
	"strconv"

	"github.com/tppkit/psd2/client"
)

// ErrDeleteUnconfirmed matches the error of a deletion ([Service.Delete],
// [Service.DeleteAt]) that the bank answered with an error after the
// client sent it again following an attempt that may have reached the
// bank (a dropped connection, a timeout, a 502): that attempt may have
// deleted the basket, and the bank then refuses the next one (a 404, or
// another error such as 405 or 409), so the refusal does not say the
// basket was not deleted. Whether it was is unknown: read the basket
// ([Service.Get] or [Service.Status]; a 404, [client.ErrNotFound], says
// it is gone) before telling anyone either. The bank's [*client.Error]
// is inside (errors.As), with the call's Operation, RequestID and
// StatusCode.
var ErrDeleteUnconfirmed = errors.New("basket: the deletion's outcome is unconfirmed")

// deleteUnconfirmedError is the bank's error answer (a *client.Error) to
// a deletion sent again after an attempt that may have deleted the
// basket ([ErrDeleteUnconfirmed]). It quotes nothing of the bank's body.
type deleteUnconfirmedError struct {
	ce  *client.Error
	err error // the error as the call returned it, ce inside
}

// Error returns one line: the answer, that it came to a retry, and what
// to do.
func (e *deleteUnconfirmedError) Error() string {
	return e.ce.Operation + ": the bank answered " + strconv.Itoa(e.ce.StatusCode) +
		" to a retry of the deletion after an earlier attempt that may have deleted the basket (X-Request-ID " + e.ce.RequestID +
		"): whether the basket was deleted is unknown; read the basket's status to learn it"
}

// Unwrap returns the call's error, the bank's *client.Error inside.
func (e *deleteUnconfirmedError) Unwrap() error { return e.err }

// Is matches [ErrDeleteUnconfirmed].
func (e *deleteUnconfirmedError) Is(target error) bool { return target == ErrDeleteUnconfirmed }
