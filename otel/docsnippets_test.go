package otel_test

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tppkit/psd2/internal/docsnippets"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

var updateDocs = flag.Bool("update", false, "rewrite "+docGenFile+" from the package docs")

// docGenFile is the generated file of the otel module's doc snippets.
const docGenFile = "docsnippets_gen_test.go"

// docConfig is the otel module's: the packages its snippets name, and
// what their free identifiers are.
var docConfig = docsnippets.Config{
	Package: "otel_test",
	Command: "go test . -run TestDocSnippetsFresh -update (in otel)",
	Imports: map[string]string{
		"client": "github.com/tppkit/psd2/client",
		"otel":   "github.com/tppkit/psd2/otel",
	},
	Givens: map[string]string{
		"ctx":     "ctx",
		"tp":      "g.tp",
		"mp":      "g.mp",
		"baseURL": "g.baseURL",
		"creds":   "g.creds",
	},
}

// TestDocSnippetsFresh fails when docsnippets_gen_test.go is not what
// the package docs give (run it with -update to rewrite the file).
func TestDocSnippetsFresh(t *testing.T) {
	pkgs, err := docsnippets.Packages(".")
	require.NoError(t, err)
	snippets, err := docsnippets.Extract(".", pkgs)
	require.NoError(t, err)
	src, err := docsnippets.Generate(docConfig, snippets)
	require.NoError(t, err)
	if *updateDocs {
		require.NoError(t, os.WriteFile(docGenFile, src, 0o644))
		return
	}
	have, err := os.ReadFile(docGenFile)
	require.NoError(t, err)
	assert.Equal(t, string(src), string(have), "%s is stale: %s", docGenFile, docConfig.Command)
}

// TestDocSnippetsRun runs every Go snippet of the otel module's package
// docs with real providers and the emulator's base URL.
func TestDocSnippetsRun(t *testing.T) {
	t.Parallel()
	require.NotEmpty(t, docSnippets)
	for _, s := range docSnippets {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, s.run(t, t.Context(), newDocGivens(t)))
		})
	}
}

// docGivens is what the snippets take for granted: the TPP's providers,
// the emulator's base URL and a TPP's credentials it trusts.
type docGivens struct {
	tp      *sdktrace.TracerProvider
	mp      *sdkmetric.MeterProvider
	baseURL string
	creds   *signing.Credentials
}

func newDocGivens(t *testing.T) *docGivens {
	t.Helper()
	s := emulator.NewServer()
	t.Cleanup(s.Close)
	creds, err := s.NewTPP("Doc TPP")
	require.NoError(t, err)
	return &docGivens{tp: sdktrace.NewTracerProvider(), mp: sdkmetric.NewMeterProvider(), baseURL: s.URL, creds: creds}
}
