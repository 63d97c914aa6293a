package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/http/httputil"
	"strings"

	"github.com/tppkit/psd2/signing"
)

// How verify reads a capture. The request line and the header section are
// read up to maxCaptureHead bytes, net/http's own bound on a request's
// headers (http.DefaultMaxHeaderBytes); a longer one is refused. The body
// is never held: it is streamed through SHA-256 and SHA-512, so a capture
// of any size is checked in the same small memory (a 300 MB body included).
//
// The body is what follows the blank line: exactly Content-Length bytes
// when the capture has that header (then at most one line break may follow,
// which an editor adds), the chunks of a chunked body, else everything to
// the end of the input less one final line break. Line ends in the header
// section may be CRLF or LF; the body's bytes are taken as they are.
const maxCaptureHead = 1 << 20

// bodyDigests is what verify keeps of a body: its size and hashes.
type bodyDigests struct {
	size           int64
	sha256, sha512 []byte
}

// readCapture reads a raw HTTP request from r: the request line (the
// HTTP version may be left out), the headers, a blank line and the body.
func readCapture(r io.Reader) (*http.Request, *bodyDigests, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := readHead(br)
	if err != nil {
		return nil, nil, err
	}
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
	if err != nil {
		return nil, nil, fmt.Errorf("not a raw HTTP request: %w", err)
	}
	h256, h512 := sha256.New(), sha512.New()
	d := &bodyDigests{}
	w := io.MultiWriter(h256, h512)
	switch {
	case len(req.TransferEncoding) > 0 && req.TransferEncoding[0] == "chunked":
		if d.size, err = io.Copy(w, httputil.NewChunkedReader(br)); err != nil {
			return nil, nil, fmt.Errorf("chunked body: %w", err)
		}
	case req.Header.Get("Content-Length") != "":
		n := req.ContentLength
		if d.size, err = io.CopyN(w, br, n); err != nil {
			return nil, nil, fmt.Errorf("the body ends after %d of its Content-Length %d bytes", d.size, n)
		}
		rest, _ := io.ReadAll(io.LimitReader(br, 3))
		if len(rest) > 0 && string(rest) != "\n" && string(rest) != "\r\n" {
			return nil, nil, fmt.Errorf("more than Content-Length (%d) bytes follow the headers", n)
		}
	default:
		t := &trimFinalLineBreak{w: w}
		if _, err = io.Copy(t, br); err != nil {
			return nil, nil, err
		}
		if err = t.finish(); err != nil {
			return nil, nil, err
		}
		d.size = t.n
	}
	d.sha256, d.sha512 = h256.Sum(nil), h512.Sum(nil)
	return req, d, nil
}

// readHead reads the request line and headers up to and including the
// blank line (or the end of the input), at most maxCaptureHead bytes, and
// returns them with CRLF line ends, as http.ReadRequest wants them. Blank
// lines before the request line are skipped, as RFC 9112 allows.
func readHead(br *bufio.Reader) ([]byte, error) {
	var head bytes.Buffer
	var line []byte
	read := 0
	for {
		chunk, err := br.ReadSlice('\n')
		read += len(chunk)
		if read > maxCaptureHead {
			return nil, fmt.Errorf("the request line and headers are longer than %d bytes", maxCaptureHead)
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		text := strings.TrimRight(string(line), "\r\n")
		line = line[:0]
		switch {
		case text == "" && head.Len() == 0 && err == nil:
			continue // leading blank line
		case head.Len() == 0:
			if text == "" {
				return nil, errors.New("not a raw HTTP request: no request line")
			}
			if f := strings.Fields(text); len(f) == 2 { // "GET https://..." without the version
				text += " HTTP/1.1"
			}
		}
		head.WriteString(text)
		head.WriteString("\r\n")
		if text == "" || err != nil {
			if text != "" {
				head.WriteString("\r\n")
			}
			return head.Bytes(), nil
		}
	}
}

// trimFinalLineBreak writes through to w all but a final "\n" or "\r\n":
// it holds the last two bytes back until more follow, and finish writes
// them less the line break.
type trimFinalLineBreak struct {
	w    io.Writer
	held []byte // the last two bytes seen, at most
	n    int64  // bytes written through
}

func (t *trimFinalLineBreak) Write(p []byte) (int, error) {
	if len(p) >= 2 {
		if err := t.write(t.held); err != nil {
			return 0, err
		}
		if err := t.write(p[:len(p)-2]); err != nil {
			return 0, err
		}
		t.held = append(t.held[:0], p[len(p)-2:]...)
		return len(p), nil
	}
	for _, c := range p { // one byte
		if len(t.held) == 2 {
			if err := t.write(t.held[:1]); err != nil {
				return 0, err
			}
			t.held = append(t.held[:0], t.held[1])
		}
		t.held = append(t.held, c)
	}
	return len(p), nil
}

// finish writes the held bytes, less a final line break.
func (t *trimFinalLineBreak) finish() error {
	h := t.held
	switch {
	case bytes.HasSuffix(h, []byte("\r\n")):
		h = h[:len(h)-2]
	case bytes.HasSuffix(h, []byte("\n")):
		h = h[:len(h)-1]
	}
	t.held = nil
	return t.write(h)
}

func (t *trimFinalLineBreak) write(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	n, err := t.w.Write(p)
	t.n += int64(n)
	return err
}

// verify checks a Digest header value (RFC 3230) as signing.VerifyDigest
// does, against the hashes: SHA-256 and SHA-512 values are checked, every
// one must match, other algorithms are ignored when one of the two is
// there. Errors: signing.ErrUnsupportedDigest, signing.ErrDigestMismatch.
func (d *bodyDigests) verify(header string) error {
	checked := 0
	for part := range strings.SplitSeq(header, ",") {
		alg, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return signing.ErrUnsupportedDigest
		}
		var sum []byte
		switch {
		case strings.EqualFold(alg, "SHA-256"):
			sum = d.sha256
		case strings.EqualFold(alg, "SHA-512"):
			sum = d.sha512
		default:
			continue
		}
		checked++
		if subtle.ConstantTimeCompare([]byte(base64.StdEncoding.EncodeToString(sum)), []byte(strings.TrimSpace(val))) != 1 {
			return signing.ErrDigestMismatch
		}
	}
	if checked == 0 {
		return signing.ErrUnsupportedDigest
	}
	return nil
}

// sha256Digest is the body's Digest value in SHA-256.
func (d *bodyDigests) sha256Digest() string {
	return "SHA-256=" + base64.StdEncoding.EncodeToString(d.sha256)
}

// digestsOf summarises body (tests and sign).
func digestsOf(body []byte) *bodyDigests {
	d := &bodyDigests{size: int64(len(body))}
	for _, h := range []struct {
		h   hash.Hash
		out *[]byte
	}{{sha256.New(), &d.sha256}, {sha512.New(), &d.sha512}} {
		h.h.Write(body)
		*h.out = h.h.Sum(nil)
	}
	return d
}
