package client

import (
	"errors"
	"fmt"
)

// ErrValidation matches every [*ValidationError] with errors.Is: a request
// the SDK refused before sending because the bank would reject it.
var ErrValidation = errors.New("client: invalid request")

// ValidationError is one rule a request breaks, found before anything was
// sent (lengths, currencies, check digits, mutually exclusive fields). The
// services return it (several joined with errors.Join when a request breaks
// more than one rule); reach it with errors.As.
type ValidationError struct {
	// Field is the JSON path of the offending field, for example
	// "creditorAccount.bban" or "remittanceInformationStructuredArray[0].reference",
	// or "header <name>" for a request header a [RequestOption] refused.
	Field string
	// Reason says what is wrong, in one short phrase.
	Reason string
	// Err, when set, is the error the refusal stands for (an error of a
	// FailCall option, ErrForeignHost), reachable with errors.Is and
	// errors.As.
	Err error
}

// Unwrap returns e.Err.
func (e *ValidationError) Unwrap() error { return e.Err }

// asValidation returns err as it is when it matches [ErrValidation], else
// inside a *ValidationError, so that every refusal before sending
// matches ErrValidation and gives a field to errors.As.
func asValidation(err error) error {
	if err == nil || errors.Is(err, ErrValidation) {
		return err
	}
	return &ValidationError{Field: "request", Reason: err.Error(), Err: err}
}

// Error returns "invalid <field>: <reason>".
func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason)
}

// Is matches [ErrValidation].
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }

// WithoutValidation switches off the SDK's client-side validation of the
// request for this call, for banks that accept more than docs/interface.md allows.
// The request is still signed and checked by the bank.
func WithoutValidation() RequestOption {
	return func(c *callConfig) error {
		c.skipValidation = true
		return nil
	}
}

// WithQuery adds a query parameter to this call, after the operation's own
// (for example allowLogicalDuplicate=true on a payment create).
func WithQuery(name, value string) RequestOption {
	return func(c *callConfig) error {
		if name == "" {
			return &ValidationError{Field: "query", Reason: "empty parameter name"}
		}
		if c.query == nil {
			c.query = make(map[string][]string)
		}
		c.query[name] = append(c.query[name], value)
		return nil
	}
}
