package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEmulatorCtlRefusesANameGivenTwice: advance by=1h by=100h moved
// the clock by 100 hours and exited 0, the first value dropped without
// a word; it is a usage error now, and nothing is sent.
func TestEmulatorCtlRefusesANameGivenTwice(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"now":"2026-03-01T09:00:00Z","frozen":false}`)
	}))
	defer srv.Close()
	_, errOut, code := psd2(t, "emulator", "ctl", "-control", srv.URL, "-token", "t", "advance", "by=1h", "by=100h")
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "by is given twice")
	assert.Zero(t, calls.Load(), "nothing sent")

	_, errOut, code = psd2(t, "emulator", "ctl", "-control", srv.URL, "-token", "t", "advance", "by=1h", "days=2")
	assert.Equal(t, exitOK, code, errOut)
	assert.Equal(t, int32(1), calls.Load())
}
