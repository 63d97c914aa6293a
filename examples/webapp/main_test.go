package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestRun drives the web app once, as `go run ./examples/webapp` does.
func TestRun(t *testing.T) {
	t.Parallel()
	text := demo.Run(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, "127.0.0.1:0", false, out)
	})
	assert.Contains(t, text, "GET /            200  Example TPP Connect your bank")
	assert.Contains(t, text, "GET /connect     303")
	assert.Contains(t, text, "GET /accounts    200")
	assert.Contains(t, text, "Brukskonto")
	assert.Contains(t, text, "Høyrentekonto")
	assert.Contains(t, text, "100.00 NOK")
	assert.NotContains(t, text, "psu-id")
}

// TestServe starts the app for a person and stops it with the context.
func TestServe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, "127.0.0.1:0", true, w); w.Close() }()

	line, err := readLine(r)
	require.NoError(t, err)
	addr, _, ok := strings.Cut(strings.TrimPrefix(line, "TPP web app on "), " ")
	require.True(t, ok, line)
	go func() { _, _ = io.Copy(io.Discard, r) }()

	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(addr)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop")
	}
}

func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			return string(b), err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
}

// testApp is the app on an httptest server, with a browser that stops at
// the bank's SCA page.
func testApp(t *testing.T) (*emulator.Server, *httptest.Server, *http.Client) {
	t.Helper()
	bank, c, err := demo.Start("Web app test")
	require.NoError(t, err)
	t.Cleanup(bank.Close)
	// The redirect URI needs the address before the handler exists.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	flow, err := sca.NewFlow("http://" + ln.Addr().String() + "/callback")
	require.NoError(t, err)
	sessions, err := sca.NewManager(flow, store.NewMemoryStore())
	require.NoError(t, err)
	ais, err := accounts.New(c)
	require.NoError(t, err)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: newApp(ais, sessions).routes()}}
	srv.Start()
	t.Cleanup(srv.Close)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if !strings.HasPrefix(req.URL.String(), srv.URL) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	return bank, srv, browser
}

func get(t *testing.T, hc *http.Client, u string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	require.NoError(t, err)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, text(string(b))
}

func TestCallbacks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		callback   func(t *testing.T, bank *emulator.Server, link string) string
		wantStatus int
		wantText   string
	}{
		{
			name: "cancelled at the bank",
			callback: func(t *testing.T, bank *emulator.Server, link string) string {
				u, err := bank.Reject(t.Context(), link)
				require.NoError(t, err)
				return u.String()
			},
			wantStatus: http.StatusOK,
			wantText:   "You cancelled at the bank, or the bank refused: SCA_INVALID",
		},
		{
			name: "forged state",
			callback: func(t *testing.T, bank *emulator.Server, link string) string {
				u, err := bank.Authorize(t.Context(), link, emulator.CustomerKari)
				require.NoError(t, err)
				q := u.Query()
				q.Set("state", "forged")
				u.RawQuery = q.Encode()
				return u.String()
			},
			wantStatus: http.StatusBadRequest,
			wantText:   "This link is invalid or has expired.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bank, srv, browser := testApp(t)
			resp, _ := get(t, browser, srv.URL+"/connect")
			require.Equal(t, http.StatusSeeOther, resp.StatusCode)
			link := resp.Header.Get("Location")

			resp, shown := get(t, browser, tt.callback(t, bank, link))
			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			assert.Contains(t, shown, tt.wantText)
			assert.Contains(t, shown, "Connect your bank")
		})
	}
}

// TestAccountsWithoutSessionGoesToBank: the accounts page sends a PSU
// without a session to the bank's SCA page, and the callback leads back.
func TestAccountsWithoutSessionGoesToBank(t *testing.T) {
	t.Parallel()
	bank, srv, browser := testApp(t)
	resp, _ := get(t, browser, srv.URL+"/accounts")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	link := resp.Header.Get("Location")
	require.Contains(t, link, "/tap-sandbox/")
	cb, err := bank.Authorize(t.Context(), link, emulator.CustomerOla)
	require.NoError(t, err)
	resp, shown := get(t, browser, cb.String())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "/accounts", resp.Request.URL.Path)
	assert.NotContains(t, shown, "Connect your bank")
	assert.Contains(t, shown, "Account Number Balance")
}
