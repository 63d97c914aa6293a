package basket_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestBasketAnswerMessagesBounded: a basket's answer keeps the first
// client.MaxMessages of its tppMessages, as an error answer does, the
// rest dropped: they are shown only. Before, every one was kept, and a
// body within the client's 4 MiB listing a million empty messages was a
// Basket holding a million of them (some hundred times the body in
// memory). Its status answer and its create's answer are held alike.
func TestBasketAnswerMessagesBounded(t *testing.T) {
	msgs := make([]string, 5000)
	for i := range msgs {
		msgs[i] = fmt.Sprintf(`{"category":"WARNING","code":"C%d"}`, i)
	}
	list := `"tppMessages":[` + strings.Join(msgs, ",") + `]`

	svc := mockBank(t)
	httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID,
		httpmock.NewStringResponder(http.StatusOK, `{"transactionStatus":"ACTC",`+list+`}`))
	got, err := svc.Get(t.Context(), docBasketID, basketOpts()...)
	require.NoError(t, err)
	require.Len(t, got.Messages, client.MaxMessages)
	assert.Equal(t, "C0", got.Messages[0].Code)
	assert.Equal(t, fmt.Sprint("C", client.MaxMessages-1), got.Messages[client.MaxMessages-1].Code)

	httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID+"/status",
		httpmock.NewStringResponder(http.StatusOK, `{"transactionStatus":"ACTC",`+list+`}`))
	st, err := svc.Status(t.Context(), docBasketID, basketOpts()...)
	require.NoError(t, err)
	assert.Len(t, st.Messages, client.MaxMessages)

	httpmock.RegisterResponder(http.MethodPost, basketURL,
		httpmock.NewStringResponder(http.StatusCreated, `{"basketId":"`+docBasketID+`","transactionStatus":"RCVD",`+list+`}`))
	created, err := svc.Create(t.Context(), []string{docPayment1}, basketOpts()...)
	require.NoError(t, err)
	assert.Len(t, created.Messages, client.MaxMessages)

	// An answer of MaxMessages keeps them all.
	httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID, httpmock.NewStringResponder(http.StatusOK,
		`{"transactionStatus":"ACTC","tppMessages":[`+strings.Join(msgs[:client.MaxMessages], ",")+`]}`))
	got, err = svc.Get(t.Context(), docBasketID, basketOpts()...)
	require.NoError(t, err)
	assert.Len(t, got.Messages, client.MaxMessages)
}
