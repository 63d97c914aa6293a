package client

import (
	"bufio"
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnswerHeadersBounded: the headers of an answer are bounded like its
// body (maxHeaderBytes). On the code before, the SDK's transport took
// net/http's default of 10 MiB of headers: 9 MiB of short header lines
// (about 800,000 fields) was read whole, over 100 MiB of heap for an
// answer whose body is empty.
func TestAnswerHeadersBounded(t *testing.T) {
	const fields = 800_000
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		bw := bufio.NewWriterSize(rw, 64<<10)
		fmt.Fprint(bw, "HTTP/1.1 204 No Content\r\n")
		for i := range fields {
			fmt.Fprintf(bw, "X%06d: a\r\n", i)
		}
		fmt.Fprint(bw, "\r\n")
		_ = bw.Flush()
	})
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d MiB for an answer with %d header fields (%d KiB): %v", alloc>>20, fields, fields*11>>10, err)
	require.Error(t, err, "an answer with megabytes of headers was taken")
	assert.Less(t, alloc, uint64(8<<20), "reading one answer's headers allocated far more than the headers bound")
}
