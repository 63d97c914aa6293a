package emulator

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlAPICoversEveryControl: every method of Controls has a route
// of the control API, and every route a method (the measure of issue 38:
// controls reachable over HTTP, N of N).
func TestControlAPICoversEveryControl(t *testing.T) {
	t.Parallel()
	routes := map[string]bool{}
	for _, rt := range controlRoutes {
		assert.False(t, routes[rt.method], "%s twice", rt.method)
		routes[rt.method] = true
	}
	typ := reflect.TypeOf(&Controls{})
	reachable := 0
	for i := range typ.NumMethod() {
		m := typ.Method(i).Name
		if assert.True(t, routes[m], "Controls.%s has no route in controlRoutes", m) {
			reachable++
		}
		delete(routes, m)
	}
	assert.Empty(t, routes, "routes without a Controls method")
	t.Logf("controls reachable over HTTP: %d of %d", reachable, typ.NumMethod())
	assert.Equal(t, "inject-fault", ControlName("InjectFault"))
	assert.Equal(t, "set-last-online-sca", ControlName("SetLastOnlineSCA"))
	assert.Equal(t, "change-transaction-id", ControlName("ChangeTransactionID"))
}

// controlClient calls a control API.
type controlClient struct {
	t     *testing.T
	h     http.Handler
	token string
}

func (c *controlClient) call(method, name, body string) (int, map[string]any) {
	c.t.Helper()
	req := httptest.NewRequest(method, "/controls/"+name, strings.NewReader(body))
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	var out map[string]any
	require.NoError(c.t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	return rec.Code, out
}

func TestControlAPIToken(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, tc := range []struct {
		name, token, sent string
		want              int
	}{
		{"no token sent", "s3cret", "", http.StatusUnauthorized},
		{"wrong token", "s3cret", "s3cres", http.StatusUnauthorized},
		{"longer token", "s3cret", "s3cret1", http.StatusUnauthorized},
		{"empty token refuses all", "", "", http.StatusUnauthorized},
		{"right token", "s3cret", "s3cret", http.StatusOK},
	} {
		c := &controlClient{t: t, h: s.ControlHandler(tc.token), token: tc.sent}
		status, body := c.call(http.MethodGet, "now", "")
		assert.Equal(t, tc.want, status, tc.name)
		if tc.want != http.StatusOK {
			assert.Equal(t, "UNAUTHORIZED", body["code"], tc.name)
		}
	}
}

// TestControlAPIDrivesAScenario: consent, SCA approved over the control
// API, the clock to day 89 and past the consent's end, an outage, seed
// data and the payments list, all through HTTP.
func TestControlAPIDrivesAScenario(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tppc := newTPPClient(t, s, "Control TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}

	status, body := ctl.call(http.MethodPost, "freeze", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, true, body["frozen"])

	sid := uuid.NewString()
	cb := tppc.consent(sid, func(href string) (*url.URL, error) {
		st, out := ctl.call(http.MethodPost, "authorize", `{"scaRedirect":"`+href+`","customerNumber":"`+CustomerKari+`"}`)
		require.Equal(t, http.StatusOK, st, out)
		return url.Parse(out["callback"].(string))
	})
	psu := cb.Query().Get("psu-id")
	require.NotEmpty(t, psu)
	id := tppc.accountIDs(psuHeaders(psu, sid)...)
	require.NotEmpty(t, id)

	status, body = ctl.call(http.MethodGet, "consents", `{"customerNumber":"`+CustomerKari+`"}`)
	require.Equal(t, http.StatusOK, status, body)
	consents := body["consents"].([]any)
	require.Len(t, consents, 1)
	assert.InDelta(t, 90, consents[0].(map[string]any)["daysLeft"], 1e-9)

	status, _ = ctl.call(http.MethodPost, "advance", `{"days":89}`)
	require.Equal(t, http.StatusOK, status)
	_, body = ctl.call(http.MethodGet, "consents", `{"customerNumber":"`+CustomerKari+`"}`)
	assert.InDelta(t, 1, body["consents"].([]any)[0].(map[string]any)["daysLeft"], 1e-9)

	balances := func() int {
		return tppc.get("/v1/accounts/"+id[0]+"/balances", hdr("PSU-ID", psu), hdr("TPP-Session-ID", sid)).status
	}
	assert.Equal(t, http.StatusOK, balances())

	status, body = ctl.call(http.MethodPost, "outage", `{"kind":"unavailable","for":"1m"}`)
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, http.StatusServiceUnavailable, balances())
	ctl.call(http.MethodPost, "advance", `{"by":"1m"}`)
	assert.Equal(t, http.StatusOK, balances())

	ctl.call(http.MethodPost, "advance", `{"by":"2d"}`)
	assert.Equal(t, http.StatusUnauthorized, balances(), "the consent expired")

	status, body = ctl.call(http.MethodPost, "seed", `{"customers":[{"accounts":[{"balance":"10.00"}],"consent":{}}]}`)
	require.Equal(t, http.StatusOK, status, body)
	seeded := body["customers"].([]any)[0].(map[string]any)
	assert.NotEmpty(t, seeded["session"].(map[string]any)["psuId"])

	status, body = ctl.call(http.MethodGet, "payments", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, []any{}, body["payments"])

	status, body = ctl.call(http.MethodPost, "authorize", `{"scaRedirect":"https://127.0.0.1/tap-sandbox/9999/?state=`+uuid.NewString()+`","customerNumber":"1"}`)
	assert.Equal(t, http.StatusNotFound, status, body)
	status, body = ctl.call(http.MethodPost, "advance", `{"by":"soon"}`)
	assert.Equal(t, http.StatusBadRequest, status, body)
	status, _ = ctl.call(http.MethodPost, "no-such-control", "")
	assert.Equal(t, http.StatusNotFound, status)
}

// TestControlAPIEveryRouteAnswers calls every control with its
// documented example: none fails on its own arguments' shape or answers
// 500 (the examples' placeholder ids may be unknown: 404).
func TestControlAPIEveryRouteAnswers(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Routes TPP")
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, rt := range controlRoutes {
		args := strings.ReplaceAll(rt.args, `"tpp":""`, `"tpp":"`+base64.StdEncoding.EncodeToString(c.creds.Certificate.Raw)+`"`)
		status, body := ctl.call(http.MethodPost, ControlName(rt.method), args)
		assert.Contains(t, []int{http.StatusOK, http.StatusNotFound, http.StatusUnprocessableEntity}, status, "%s %s: %v", rt.method, args, body)
		if status != http.StatusOK {
			assert.NotEqual(t, "BAD_ARGUMENTS", body["code"], rt.method)
			assert.NotEqual(t, "NOT_FOUND", body["code"], rt.method)
		}
	}
	s.Control().EndOutages()
}

// TestBankListenerServesNoControl: the bank's own listener has no
// control route, with or without the token, under /api or not.
func TestBankListenerServesNoControl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	before := s.Control().Now()
	base := strings.TrimSuffix(s.URL, "/api")
	for _, u := range []string{base + "/controls/advance", s.URL + "/controls/advance", base + "/controls", base + "/banks"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, bytes.NewReader([]byte(`{"days":89}`)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := s.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Contains(t, []int{http.StatusNotFound, http.StatusBadRequest, http.StatusMethodNotAllowed}, resp.StatusCode, u)
	}
	assert.Equal(t, before, s.Control().Now(), "the clock did not move")
}

// TestDocsShowEveryControl: docs/emulator.md has a curl example of every
// control of the API.
func TestDocsShowEveryControl(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "emulator.md"))
	require.NoError(t, err)
	for _, rt := range controlRoutes {
		re := regexp.MustCompile(`\$CONTROL/controls/` + ControlName(rt.method) + `[ \n]`)
		assert.True(t, re.Match(doc), "no curl example of %s", rt.method)
	}
}
