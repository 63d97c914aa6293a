package tpp

import "github.com/tppkit/psd2/internal/redact"

//go:generate go run ../internal/redact/gen

// The printed and slog forms of the TPP dialogue's answer. Its JSON is
// the bank's document and stays data. The interface asks for an official,
// non-personal contact address, but a TPP may register a person's, so
// String, GoString, Format (every fmt verb) and LogValue show the address
// as redacted when set; read Email to show it.

// String describes c with its address redacted.
func (c Contact) form() *redact.Form {
	return redact.New("tpp.Contact").Secret("email", c.Email)
}
