package payments_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/childproc"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// Environment of the helper processes of TestJournalSurvivesKill.
const (
	journalHelperEnv = "PSD2_JOURNAL_HELPER" // "create" or "resolve"
	journalDirEnv    = "PSD2_JOURNAL_DIR"    // the test's directory: credentials, session, store/
	journalBankEnv   = "PSD2_JOURNAL_BANK"   // the bank's base URL
	journalIDEnv     = "PSD2_JOURNAL_ID"     // the create's X-Request-ID
)

// helperService is the Service of a helper process: the parent's TPP
// credentials, the bank of the parent, a journal in the FileStore of the
// parent's directory, with its client. It returns the request options of
// Kari's session.
func helperService(t *testing.T, dir string) (*payments.Service, *client.Client, *journal.Journal, []client.RequestOption) {
	t.Helper()
	certPEM, err := os.ReadFile(filepath.Join(dir, "cert.pem"))
	require.NoError(t, err)
	keyPEM, err := os.ReadFile(filepath.Join(dir, "key.pem"))
	require.NoError(t, err)
	creds, err := signing.LoadPEM(certPEM, keyPEM)
	require.NoError(t, err)
	c, err := client.New(os.Getenv(journalBankEnv), creds, client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	st, err := store.NewFileStore(filepath.Join(dir, "store"))
	require.NoError(t, err)
	j := mustJournal(t, st, journal.WithWritersStopped()) // the writer is known dead
	svc, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "session.json"))
	require.NoError(t, err)
	var sess sca.Session
	require.NoError(t, sess.UnmarshalBinary(b))
	return svc, c, j, []client.RequestOption{sess.RequestOptions(&client.PSU{IPAddress: psuIP})}
}

// TestJournalHelperProcess is not a test: it is the body of the processes
// TestJournalSurvivesKill starts. "create" creates a payment (and is
// killed while the bank holds the request); "resolve" resolves every
// entry in doubt and prints each resolution.
func TestJournalHelperProcess(t *testing.T) {
	mode := os.Getenv(journalHelperEnv)
	if mode == "" {
		return // run as an ordinary test: nothing to do
	}
	dir := os.Getenv(journalDirEnv)
	svc, c, j, opts := helperService(t, dir)
	fmt.Println("ready")
	_, err := bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, err)
	ctx := t.Context()
	switch mode {
	case "create":
		_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "1999.00"), append(opts, client.WithRequestID(os.Getenv(journalIDEnv)))...)
		fmt.Printf("returned %v\n", err) // never reached: the parent kills the process first
	case "resolve":
		for e, err := range j.InDoubt(ctx) {
			require.NoError(t, err)
			res, err := j.Resolve(ctx, c, e, opts...)
			require.NoError(t, err)
			id := res.ID
			if id == "" {
				id = "-" // unknown (a duplicate)
			}
			fmt.Printf("resolved %s %s %s\n", e.RequestID, res.Kind, id)
		}
		fmt.Println("done")
	}
}

// writePEM writes the TPP's credentials where the helpers read them.
func writePEM(t *testing.T, dir string, creds *signing.Credentials) {
	t.Helper()
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw})
	der, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	require.NoError(t, err)
	key := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cert.pem"), cert, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "key.pem"), key, 0o600))
}

// discard is a ResponseWriter nobody reads: the client is gone.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}

// TestJournalSurvivesKill: a real child process creates a payment with a
// journal in a FileStore against the emulator, served by this process
// over a real socket. The bank holds the POST until the parent has killed
// the child (SIGKILL): the request left, no answer was stored. Then the
// bank either processes the held request (the payment exists) or drops
// it (it never arrived). A new process finds the entry in doubt and
// resolves it; the emulator holds exactly one payment either way.
func TestJournalSurvivesKill(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		processed bool
		want      journal.ResolutionKind
	}{
		{"the bank created the payment", true, journal.ResolvedDuplicate},
		{"the request never arrived", false, journal.ResolvedCreated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			emu := testtpp.Server(t)
			var hold atomic.Bool
			hold.Store(true)
			arrived, release, handled := make(chan struct{}), make(chan struct{}), make(chan struct{})
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/v1/payments/") && hold.CompareAndSwap(true, false) {
					defer close(handled)
					body, _ := io.ReadAll(r.Body)
					close(arrived)
					<-release
					if tc.processed {
						r2 := r.Clone(context.Background())
						r2.Body = io.NopCloser(bytes.NewReader(body))
						emu.Handler().ServeHTTP(discard{h: http.Header{}}, r2)
					}
					return
				}
				emu.Handler().ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			bankURL := front.URL + "/api"

			creds, err := emu.NewTPP("Journal crash test")
			require.NoError(t, err)
			c, err := client.New(bankURL, creds, client.WithHTTPClient(front.Client()),
				client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
			require.NoError(t, err)
			sess := testpsu.Login(t, emu, c, emulator.CustomerKari)
			dir := t.TempDir()
			writePEM(t, dir, creds)
			b, err := sess.MarshalBinary()
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session.json"), b, 0o600))
			env := []string{journalDirEnv + "=" + dir, journalBankEnv + "=" + bankURL}

			id := uuid.NewString()
			creator := childproc.Start(t, 1, "TestJournalHelperProcess", append(env, journalHelperEnv+"=create", journalIDEnv+"="+id)...)[0]
			_, err = io.WriteString(creator.Stdin, "go\n")
			require.NoError(t, err)
			select {
			case <-arrived:
			case <-time.After(60 * time.Second):
				t.Fatal("the create never reached the bank")
			}
			require.NoError(t, creator.Cmd.Process.Kill()) // SIGKILL: no deferred code, no outcome
			err = creator.Cmd.Wait()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "killed")
			close(release)
			<-handled

			// The journal, read by this process: an intent without outcome.
			st, err := store.NewFileStore(filepath.Join(dir, "store"))
			require.NoError(t, err)
			j := mustJournal(t, st)
			e, err := j.Entry(ctx, id)
			require.NoError(t, err)
			assert.Empty(t, e.Outcome, "killed before the answer was stored")
			assert.True(t, e.InDoubt())
			assert.Len(t, emu.Control().Payments(), map[bool]int{true: 1}[tc.processed])

			resolver := childproc.Start(t, 1, "TestJournalHelperProcess", append(env, journalHelperEnv+"=resolve")...)[0]
			_, err = io.WriteString(resolver.Stdin, "go\n")
			require.NoError(t, err)
			fields := strings.Fields(resolver.Line(t, "resolved "))
			require.Len(t, fields, 4, "resolved <id> <kind> <payment id>")
			assert.Equal(t, id, fields[1])
			assert.Equal(t, string(tc.want), fields[2])
			require.Equal(t, "done", resolver.Line(t, "done"))
			require.NoError(t, resolver.Cmd.Wait())

			held := emu.Control().Payments()
			require.Len(t, held, 1, "exactly one payment")
			e, err = j.Entry(ctx, id)
			require.NoError(t, err)
			require.NotNil(t, e.Resolution)
			assert.Equal(t, tc.want, e.Resolution.Kind)
			assert.False(t, e.InDoubt())
			if tc.processed {
				assert.Equal(t, id, held[0].RequestID, "the killed process's payment")
			} else {
				assert.Equal(t, held[0].ID, fields[3])
				assert.Equal(t, held[0].ID, e.ID)
				assert.Equal(t, e.Resolution.ResendRequestID, held[0].RequestID, "created by the resend")
			}
		})
	}
}
