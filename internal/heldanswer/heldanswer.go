// Package heldanswer keeps an HTTP answer in memory until its handler
// has ended, for a server that must finish or replace the answer before
// it goes out: the emulator signs its answers over their whole body, and
// the emulator command writes its directory file before a control call's
// answer leaves. Both handlers' answers are JSON documents marshalled
// whole first, so holding one costs no more than that.
package heldanswer

import (
	"bytes"
	"net/http"
)

// Answer is an [http.ResponseWriter] that keeps the answer: its header,
// its status (the first written, as net/http keeps it) and its body.
type Answer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// New returns an empty Answer.
func New() *Answer { return &Answer{header: http.Header{}} }

// Header returns the answer's header, to be set before WriteHeader.
func (a *Answer) Header() http.Header { return a.header }

// WriteHeader keeps the status; a later call changes nothing.
func (a *Answer) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

// Write keeps p in the body; the status is 200 unless written before.
func (a *Answer) Write(p []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	return a.body.Write(p)
}

// Status returns the answer's status: 200 when none was written.
func (a *Answer) Status() int {
	if a.status == 0 {
		return http.StatusOK
	}
	return a.status
}

// Body returns the body written so far (not a copy).
func (a *Answer) Body() []byte { return a.body.Bytes() }

// CopyHeader sets each field of the answer's header in h, replacing
// what h held under that name.
func (a *Answer) CopyHeader(h http.Header) {
	for k, v := range a.header {
		h[k] = v
	}
}
