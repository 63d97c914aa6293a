package docsnippets_test

import (
	"context"
	"flag"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/docsnippets"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

var updateDocs = flag.Bool("update", false, "rewrite "+genFile+" from the package docs")

// genFile is the generated file of the core module's doc snippets.
const genFile = "snippets_gen_test.go"

// root is the core module's root.
const root = "../.."

// docConfig is the core module's: the packages its snippets name, and what
// their free identifiers are.
var docConfig = docsnippets.Config{
	Package: "docsnippets_test",
	Command: "go test ./internal/docsnippets -run TestDocSnippetsFresh -update",
	Imports: map[string]string{
		"accounts": "github.com/tppkit/psd2/accounts",
		"basket":   "github.com/tppkit/psd2/basket",
		"budget":   "github.com/tppkit/psd2/budget",
		"banks":    "github.com/tppkit/psd2/banks",
		"client":   "github.com/tppkit/psd2/client",
		"emulator": "github.com/tppkit/psd2/sandbox/emulator",
		"journal":  "github.com/tppkit/psd2/journal",
		"json":     "encoding/json",
		"money":    "github.com/tppkit/psd2/money",
		"payments": "github.com/tppkit/psd2/payments",
		"sca":      "github.com/tppkit/psd2/sca",
		"store":    "github.com/tppkit/psd2/store",
		"tpp":      "github.com/tppkit/psd2/tpp",
	},
	Givens: map[string]string{
		"c":     "g.c",
		"ctx":   "ctx",
		"sid":   "g.sid",
		"cb":    "g.cb",
		"ip":    "g.ip",
		"psuID": "g.psuID",
		"st":    "g.st",
		"ids":   "g.ids",
		// accountID: an account's resource id.
		"accountID": "g.accountID",
		// The payments doc's second snippet: a standing order, its service
		// and the PSU's options.
		"payments.svc":           "g.payments",
		"payments.standingOrder": "g.standingOrder",
		"payments.opts":          "g.opts",
	},
}

// TestDocSnippetsFresh fails when snippets_gen_test.go is not what the
// package docs give (run it with -update to rewrite the file).
func TestDocSnippetsFresh(t *testing.T) {
	pkgs, err := docsnippets.Packages(root)
	require.NoError(t, err)
	snippets, err := docsnippets.Extract(root, pkgs)
	require.NoError(t, err)
	src, err := docsnippets.Generate(docConfig, snippets)
	require.NoError(t, err)
	if *updateDocs {
		require.NoError(t, os.WriteFile(genFile, src, 0o644))
		return
	}
	have, err := os.ReadFile(genFile)
	require.NoError(t, err)
	assert.Equal(t, string(src), string(have), "%s is stale: %s", genFile, docConfig.Command)
	names := make([]string, 0, len(snippets))
	for _, s := range snippets {
		names = append(names, s.Name())
	}
	t.Logf("%d snippets: %s", len(snippets), strings.Join(names, ", "))
}

// TestDocSnippetsRun runs every Go snippet of the core module's package
// docs against an emulator of its own, as a reader would: each call of
// the snippet must succeed.
func TestDocSnippetsRun(t *testing.T) {
	t.Parallel()
	require.NotEmpty(t, docSnippets)
	for _, s := range docSnippets {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			g := newGivens(t, s.name)
			require.NoError(t, s.run(t, t.Context(), g))
			if strings.HasPrefix(s.name, "journal/") {
				j, err := journal.New(g.st)
				require.NoError(t, err)
				for e, err := range j.InDoubt(t.Context()) {
					require.NoError(t, err)
					t.Errorf("still in doubt after the snippet resolved the journal: %v", e)
				}
			}
		})
	}
}

// docGivens is what the snippets take for granted: a client of a TPP
// the emulator trusts, with a store; the PSU Kari's session (sid,
// psuID) after her login; the callback URI; her IP address.
type docGivens struct {
	s         *emulator.Server
	c         *client.Client
	st        store.Store
	sid       string
	psuID     string
	cb        string
	ip        string
	customer  string
	accountID string // an account's resource id (the budget snippet reads its count)

	ids           []string               // two payments awaiting authorisation (basket)
	payments      *payments.Service      // the payments service (its second snippet)
	standingOrder any                    // a standing order's body
	opts          []client.RequestOption // the PSU's session options
}

// newGivens sets up the givens of the snippet name against a new
// emulator.
func newGivens(t *testing.T, name string) *docGivens {
	t.Helper()
	s := emulator.NewServer()
	t.Cleanup(s.Close)
	creds, err := s.NewTPP("Doc TPP")
	require.NoError(t, err)
	st := store.NewMemoryStore()
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	sess := testpsu.Login(t, s, c, emulator.CustomerKari)
	g := &docGivens{s: s, c: c, st: st, sid: sess.TPPSessionID, psuID: sess.PSUID, cb: testtpp.RedirectURI,
		ip: "192.0.2.10", customer: emulator.CustomerKari}
	g.opts = []client.RequestOption{client.WithTPPSessionID(g.sid), client.WithRedirectURI(g.cb),
		client.WithPSU(client.PSU{ID: g.psuID, IPAddress: g.ip}), client.WithPSUContext(client.Private)}
	g.payments, err = payments.New(c)
	require.NoError(t, err)
	g.accountID = "doc-account-" + strings.ReplaceAll(name, "/", "-")
	g.standingOrder = struct {
		payments.NorwegianDomestic
		StartDate date.Date `json:"startDate"`
		Frequency string    `json:"frequency"`
	}{g.ndct("300.00", "Husleie"), date.Of(time.Now().AddDate(0, 0, 7)), "Monthly"}

	switch {
	case strings.HasPrefix(name, "basket/"):
		for _, amount := range []string{"40.00", "60.00"} {
			init, err := g.payments.CreateNorwegianDomestic(t.Context(), ptr(g.ndct(amount, "Kurv "+amount)), g.opts...)
			require.NoError(t, err)
			g.ids = append(g.ids, init.PaymentID)
		}
	case strings.HasPrefix(name, "journal/"):
		// A payment in doubt: the bank dropped the request before it
		// processed it, an hour ago (the journal's clock says), so the
		// bank is done with it and Resolve acts at once.
		hourAgo, err := client.New(s.URL, creds, client.WithClock(func() time.Time { return time.Now().Add(-time.Hour) }))
		require.NoError(t, err)
		j, err := journal.New(st, journal.WithClient(hourAgo))
		require.NoError(t, err)
		pis, err := payments.New(c, payments.WithJournal(j))
		require.NoError(t, err)
		s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
		id := uuid.NewString()
		_, err = pis.CreateNorwegianDomestic(t.Context(), ptr(g.ndct("12.00", "I tvil")), append(g.opts, client.WithRequestID(id))...)
		require.ErrorIs(t, err, client.ErrOutcomeUnknown)
		// The store's in-flight lease of the create ran out with that
		// hour, too.
		require.NoError(t, st.Delete(t.Context(), "journal/flight/"+id))
	}
	return g
}

// ndct is a domestic payment from Kari's current account.
func (g *docGivens) ndct(amount, message string) payments.NorwegianDomestic {
	return payments.NorwegianDomestic{
		InstructedAmount: money.MustParse(amount, "NOK"), CreditorName: "Ola Eksempel",
		CreditorAccount: payments.AccountReference{BBAN: "86011117947", Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount: payments.AccountReference{BBAN: "95312776066", Currency: "NOK"}, RemittanceInformationUnstructured: message,
	}
}

func ptr[T any](v T) *T { return &v }

// sca is the PSU's SCA of link, as "send the PSU to link" in a snippet:
// the emulator approves it as the customer, and the psu-id of the
// callback is returned.
func (g *docGivens) sca(t *testing.T, ctx context.Context, link string) string {
	t.Helper()
	require.NotEmpty(t, link, "the snippet sends the PSU to an empty link")
	cb, err := g.s.Control().Authorize(ctx, link, g.customer)
	require.NoError(t, err)
	u, err := url.Parse(cb.String())
	require.NoError(t, err)
	psuID := u.Query().Get("psu-id")
	require.NotEmpty(t, psuID, "the callback brings psu-id")
	return psuID
}

// TestPackagesFindsEveryDoc: the snippets come from every package of the
// module with a doc.go, not a list kept by hand.
func TestPackagesFindsEveryDoc(t *testing.T) {
	t.Parallel()
	pkgs, err := docsnippets.Packages(root)
	require.NoError(t, err)
	for _, want := range []string{"payments", "accounts", "basket", "journal", "tpp", "sandbox/emulator"} {
		assert.Contains(t, pkgs, want)
	}
	for _, p := range pkgs {
		assert.False(t, strings.HasPrefix(p, "pgstore") || strings.HasPrefix(p, "otel") || p == "cmd/psd2",
			"%s: another module, or a command", p)
		_, err := os.Stat(filepath.Join(root, p, "doc.go"))
		assert.NoError(t, err)
	}
}
