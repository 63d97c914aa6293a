package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/docsnippets"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
)

var updateDocs = flag.Bool("update", false, "rewrite "+docGenFile+" from the package docs")

// docGenFile is the generated file of the pgstore module's doc snippets.
const docGenFile = "docsnippets_gen_test.go"

// docConfig is the pgstore module's: the packages its snippets name,
// and what their free identifiers are.
var docConfig = docsnippets.Config{
	Package: "pgstore_test",
	Command: "go test . -run TestDocSnippetsFresh -update (in pgstore)",
	Imports: map[string]string{
		"client":  "github.com/tppkit/psd2/client",
		"journal": "github.com/tppkit/psd2/journal",
		"os":      "os",
		"pgstore": "github.com/tppkit/psd2/pgstore",
		"sca":     "github.com/tppkit/psd2/sca",
	},
	Givens: map[string]string{
		"ctx":     "ctx",
		"bankURL": "g.bankURL",
		"creds":   "g.creds",
		"flow":    "g.flow",
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

// TestDocSnippetsRun runs every Go snippet of the pgstore module's
// package docs against the test server, in a database of its own that
// DATABASE_URL names (so that the snippet's default schema is its own),
// and the emulator.
func TestDocSnippetsRun(t *testing.T) {
	require.NotEmpty(t, docSnippets)
	for _, s := range docSnippets {
		t.Run(s.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", throwawayDatabase(t))
			require.NoError(t, s.run(t, t.Context(), newDocGivens(t)))
		})
	}
}

// docGivens is what the snippets take for granted: the emulator's base
// URL, a TPP's credentials it trusts, and an SCA flow.
type docGivens struct {
	bankURL string
	creds   *signing.Credentials
	flow    *sca.Flow
}

func newDocGivens(t *testing.T) *docGivens {
	t.Helper()
	s := emulator.NewServer()
	t.Cleanup(s.Close)
	creds, err := s.NewTPP("Doc TPP")
	require.NoError(t, err)
	flow, err := sca.NewFlow(testtpp.RedirectURI)
	require.NoError(t, err)
	return &docGivens{bankURL: s.URL, creds: creds, flow: flow}
}

// throwawayDatabase creates a database on the test server, dropped when
// the test ends, and returns the connection string that names it.
func throwawayDatabase(t *testing.T) string {
	t.Helper()
	conn := pgtest.Conn(t)
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	name := "psd2_doc_" + hex.EncodeToString(b[:])
	c, err := pgx.Connect(t.Context(), conn)
	require.NoError(t, err)
	defer c.Close(context.Background())
	_, err = c.Exec(t.Context(), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, conn)
		if err != nil {
			t.Errorf("dropping database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping database %s: %v", name, err)
		}
	})
	if u, err := url.Parse(conn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	return strings.TrimSpace(conn) + " dbname=" + name
}
