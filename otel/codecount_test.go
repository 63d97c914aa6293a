package otel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"

	psd2otel "github.com/tppkit/psd2/otel"
)

// TestSpanCodesCountBounded: a bank's error answer with thousands of
// tppMessages (within the client's 64 KiB bound on an error body) puts
// at most one entry per distinct code, each one of client.Codes or
// OTHER, in psd2.tpp_message.codes. Before the fix the attribute held
// one entry per message: 2,500 strings on the attempt's span and 2,500
// more on the operation's, at every call.
func TestSpanCodesCountBounded(t *testing.T) {
	var body strings.Builder
	body.WriteString(`{"tppMessages":[`)
	for i := range 2500 {
		if i > 0 {
			body.WriteString(",")
		}
		code := "FORMAT_ERROR"
		switch i % 3 {
		case 1:
			code = fmt.Sprintf("X%d", i%1000)
		case 2:
			code = "CONSENT_EXPIRED"
		}
		fmt.Fprintf(&body, `{"code":%q}`, code)
	}
	body.WriteString(`]}`)
	require.Less(t, body.Len(), 64<<10, "within the client's bound on an error body")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(body.String()))
	}))
	t.Cleanup(srv.Close)
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	obs, err := psd2otel.New(psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp))
	require.NoError(t, err)
	c, err := client.New(srv.URL, testtpp.Credentials(t, "Codes TPP"), client.WithObserver(obs),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	_, err = c.Do(t.Context(), client.Operation{Name: "custom.Read", Method: http.MethodGet, Path: "/v1/consents/x/status",
		Statuses: []int{200}}, nil)
	require.Error(t, err)
	spans := sr.Ended()
	require.NotEmpty(t, spans)
	seen := 0
	for _, s := range spans {
		for _, kv := range s.Attributes() {
			if kv.Key != psd2otel.AttrCodes {
				continue
			}
			seen++
			codes := kv.Value.AsStringSlice()
			require.LessOrEqual(t, len(codes), len(client.Codes)+1, "span %q: %d codes", s.Name(), len(codes))
			require.ElementsMatch(t, []string{"FORMAT_ERROR", "OTHER", "CONSENT_EXPIRED"}, codes, "span %q", s.Name())
		}
	}
	require.Equal(t, 2, seen, "the attempt's span and the operation's carry the codes")
}
