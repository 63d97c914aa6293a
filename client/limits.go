package client

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Limits on what one answer may cost. The interface's documents are small
// (an accounts list, a page of transactions, a payment), but decoding JSON
// into Go values multiplies its size: a body of empty objects grows a
// hundredfold and more on the heap, and each member a document type does
// not name is kept (its Extra) at about a hundred bytes for a six-byte
// `"a":0,`. Bounding the bytes, the JSON objects and arrays, and the
// members and array elements together bounds the heap one answer can
// take: 64 MB at most, as the accounts package's limit test measures
// with the costliest answers it can build within them. These constants
// are the one place the limits live.
const (
	// maxBody bounds a 2xx body.
	maxBody = 4 << 20
	// maxJSONValues bounds the JSON objects and arrays of a 2xx body.
	maxJSONValues = 20_000
	// maxJSONMembers bounds the members of objects and the elements of
	// arrays of a 2xx body, all levels together. The count is one per
	// comma outside strings and one per object and array (for its first
	// member or element), which is never fewer than there are members
	// and elements.
	maxJSONMembers = 100_000
	// maxErrorBody bounds how much of a non-2xx body is read; the rest is
	// dropped, and an error body cut short decodes to no messages. Its
	// Digest cannot be checked: the client skips that check under
	// VerifyIfPresent (a Digest mismatch it caused by cutting is no
	// sign of tampering, and the answer's status stands) but refuses
	// the answer under VerifyRequired, which promises a body checked
	// against a signed Digest (errCutBody).
	maxErrorBody = 64 << 10
	// maxHeaderBytes bounds the header section of an answer (the SDK's
	// own transport's MaxResponseHeaderBytes): the bank's headers,
	// Signature and certificate included, take a few KiB, and net/http
	// would otherwise read 10 MiB of them, over 100 MiB of heap when
	// they are short fields. An answer past it fails as net/http's
	// "server response headers exceeded" transport error. A caller's own
	// http.Client (WithHTTPClient) keeps its transport's setting.
	maxHeaderBytes = 64 << 10
)

// ErrAnswerTooLarge matches an answer beyond the client's size limits:
// more than 4 MiB, more than 20,000 JSON objects and arrays, or more than
// 100,000 JSON members and array elements. It is not retried; for a
// request that is not repeatable it comes inside an [ErrOutcomeUnknown].
var ErrAnswerTooLarge = errors.New("client: answer exceeds the size limits")

// readBody reads a response body within the limits: a 2xx body past them
// is an ErrAnswerTooLarge, another body is cut at maxErrorBody, and cut
// says so.
func readBody(r io.Reader, status int) (b []byte, cut bool, err error) {
	limit := int64(maxErrorBody)
	ok := status >= 200 && status <= 299
	if ok {
		limit = maxBody
	}
	b, err = io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > limit {
		if !ok {
			return b[:limit], true, nil
		}
		return nil, false, fmt.Errorf("%w: more than %d bytes", ErrAnswerTooLarge, maxBody)
	}
	if ok {
		switch values, members := countJSON(b, maxJSONValues+1, maxJSONMembers+1); {
		case values > maxJSONValues:
			return nil, false, fmt.Errorf("%w: more than %d JSON objects and arrays", ErrAnswerTooLarge, maxJSONValues)
		case members > maxJSONMembers:
			return nil, false, fmt.Errorf("%w: more than %d JSON members and array elements", ErrAnswerTooLarge, maxJSONMembers)
		}
	}
	return b, false, nil
}

// countJSON counts, outside strings, the '{' and '[' of b (values) and
// its commas plus values (members, never fewer than the members and
// array elements), stopping when either reaches its stop. It reads bytes
// only; whether b is valid JSON is the decoder's business.
func countJSON(b []byte, stopValues, stopMembers int) (values, members int) {
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			values++
			members++
		case c == ',':
			members++
		default:
			continue
		}
		if values >= stopValues || members >= stopMembers {
			return values, members
		}
	}
	return values, members
}

// decodeContent undoes the Content-Encoding of an answer, within the
// limits of readBody: nil when the answer has none. The client asks for
// none (Accept-Encoding: identity), so that the bytes read are the bytes
// the bank's Digest covers; a bank that compresses anyway gets its gzip
// undone here, and any other encoding refused. An empty body has nothing
// to undo, whatever encoding it names (a server that names one on every
// answer, a 204 included). cut says the decoded body was cut at
// maxErrorBody.
//
// Content-Encoding is a list (RFC 9110 section 8.4): every field line of
// it counts, in order, as one comma-separated value would. Reading the
// first line alone would take a body sent as "identity" then "br" for
// plain bytes, and such bytes must not prove a bank's refusal (the
// clock-skew retry of a payment, plainBody), nor a gzip body under
// "identity" then "gzip" pass for JSON that is not there.
func decodeContent(h http.Header, body []byte, status int) (b []byte, cut bool, err error) {
	if len(body) == 0 {
		return nil, false, nil
	}
	enc := contentCoding(h.Values("Content-Encoding"))
	switch enc {
	case "":
		return nil, false, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, false, fmt.Errorf("gzip answer: %w", err)
		}
		b, cut, err := readBody(zr, status)
		if err != nil {
			return nil, false, fmt.Errorf("gzip answer: %w", err)
		}
		return b, cut, nil
	}
	// Quoted at most MaxIDLength bytes long: the header is the bank's,
	// and a caller's transport may read megabytes of it.
	return nil, false, fmt.Errorf("answer in content encoding %q, which the client did not ask for", clipBytes(enc))
}

// contentCoding is the coding the Content-Encoding field lines vs name,
// in lower case: "" for none, or the codings joined by ", " when they
// are more than one. "identity" (no coding) and empty elements are
// dropped, so that "identity" beside gzip still means gzip; two codings,
// gzip twice included, are more than the client undoes.
func contentCoding(vs []string) string {
	var codings []string
	for _, v := range vs {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	if len(codings) > 1 {
		return strings.Join(codings, ", ")
	}
	if len(codings) == 1 {
		return codings[0]
	}
	return ""
}
