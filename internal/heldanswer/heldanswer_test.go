package heldanswer_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/internal/heldanswer"
)

func TestAnswerKeepsTheFirstStatus(t *testing.T) {
	a := heldanswer.New()
	assert.Equal(t, http.StatusOK, a.Status(), "none written: 200")
	a.Header().Set("X-One", "1")
	a.WriteHeader(http.StatusCreated)
	a.WriteHeader(http.StatusTeapot)
	_, _ = a.Write([]byte("ab"))
	_, _ = a.Write([]byte("c"))
	assert.Equal(t, http.StatusCreated, a.Status())
	assert.Equal(t, "abc", string(a.Body()))
	h := http.Header{"X-One": {"0"}, "X-Two": {"2"}}
	a.CopyHeader(h)
	assert.Equal(t, http.Header{"X-One": {"1"}, "X-Two": {"2"}}, h)
}

func TestAnswerWriteWithoutStatusIs200(t *testing.T) {
	a := heldanswer.New()
	_, _ = a.Write([]byte("x"))
	a.WriteHeader(http.StatusNotFound)
	assert.Equal(t, http.StatusOK, a.Status(), "the status of the first write stays")
}
