package sca_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
)

// TestSessionContextPrintedAsWord: a session not yet validated (decoded
// from a TPP's own storage with UnmarshalBinary, which does not
// validate, or tampered with) may hold any text as its context: its
// printed, slog and JSON forms show it as redact.Word shows a word, so
// a forged log line or a national identity number in it never reaches
// a log. They showed it as it was. PRIVATE and CORPORATE show as they
// are.
func TestSessionContextPrintedAsWord(t *testing.T) {
	t.Parallel()
	var s sca.Session
	require.NoError(t, s.UnmarshalBinary([]byte(`{"psuId":"fecae238-d8df-4d47-b519-cc5d7b9b00a4","tppSessionId":"s1",`+
		`"context":"PRIVATE\nlevel=ERROR msg=forged 01018012345"}`)))
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("m", "session", s)
	js, err := json.Marshal(s)
	require.NoError(t, err)
	for name, form := range map[string]string{
		"v": fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s), "slog": logged.String(), "json": string(js),
	} {
		assert.NotContains(t, form, "forged", name)
		assert.NotContains(t, form, "01018012345", name)
		assert.Contains(t, form, "OTHER", name)
	}

	s.Context = client.Corporate
	assert.Contains(t, s.String(), "CORPORATE")
}
