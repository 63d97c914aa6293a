package faultnet

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// NewHTTP2 serves h over HTTP/2 with TLS (ALPN h2) on a loopback port. The
// returned pool trusts the front's certificate.
func NewHTTP2(h http.Handler, decide Decide) (*Front, *x509.CertPool, error) {
	cert, pool, err := selfSigned()
	if err != nil {
		return nil, nil, err
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}})
	if err != nil {
		return nil, nil, err
	}
	f := &Front{handler: h, decide: decide, hang: make(chan struct{}), URL: "https://" + l.Addr().String()}
	var (
		mu    sync.Mutex
		conns = map[net.Conn]bool{}
		wg    sync.WaitGroup
		once  sync.Once
	)
	f.close = func() {
		once.Do(func() {
			close(f.hang)
			l.Close()
			mu.Lock()
			for c := range conns {
				c.Close()
			}
			mu.Unlock()
			wg.Wait()
		})
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				f.serveH2(c)
				c.Close()
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
			}()
		}
	}()
	return f, pool, nil
}

// h2stream is a request being received on one stream.
type h2stream struct {
	method, path, authority string
	header                  http.Header
	body                    bytes.Buffer
}

// h2conn writes frames on one connection; the read loop and nothing else
// writes, so no lock is needed.
type h2conn struct {
	fr   *http2.Framer
	henc *hpack.Encoder
	hbuf bytes.Buffer
}

func (f *Front) serveH2(c net.Conn) {
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	hc := &h2conn{fr: http2.NewFramer(c, c)}
	hc.henc = hpack.NewEncoder(&hc.hbuf)
	hc.fr.ReadMetaHeaders = hpack.NewDecoder(65536, nil)
	if hc.fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100}) != nil {
		return
	}
	streams := map[uint32]*h2stream{}
	for {
		frame, err := hc.fr.ReadFrame()
		if err != nil {
			return
		}
		switch fr := frame.(type) {
		case *http2.SettingsFrame:
			if !fr.IsAck() && hc.fr.WriteSettingsAck() != nil {
				return
			}
		case *http2.PingFrame:
			if !fr.IsAck() && hc.fr.WritePing(true, fr.Data) != nil {
				return
			}
		case *http2.MetaHeadersFrame:
			st := &h2stream{header: http.Header{}}
			for _, hf := range fr.Fields {
				switch hf.Name {
				case ":method":
					st.method = hf.Value
				case ":path":
					st.path = hf.Value
				case ":authority":
					st.authority = hf.Value
				default:
					if !strings.HasPrefix(hf.Name, ":") {
						st.header.Add(hf.Name, hf.Value)
					}
				}
			}
			streams[fr.StreamID] = st
			if fr.StreamEnded() {
				delete(streams, fr.StreamID)
				if !f.dispatchH2(hc, fr.StreamID, st) {
					return
				}
			}
		case *http2.DataFrame:
			st := streams[fr.StreamID]
			if st == nil {
				continue
			}
			st.body.Write(fr.Data())
			if n := uint32(len(fr.Data())); n > 0 {
				hc.fr.WriteWindowUpdate(0, n)
				hc.fr.WriteWindowUpdate(fr.StreamID, n)
			}
			if fr.StreamEnded() {
				delete(streams, fr.StreamID)
				if !f.dispatchH2(hc, fr.StreamID, st) {
					return
				}
			}
		case *http2.GoAwayFrame:
			return
		}
	}
}

// dispatchH2 applies the fault to a complete request; false closes the
// connection.
func (f *Front) dispatchH2(hc *h2conn, id uint32, st *h2stream) bool {
	r := httptest.NewRequest(st.method, "https://"+st.authority+st.path, bytes.NewReader(st.body.Bytes()))
	r.Header = st.header
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/2.0", 2, 0
	ft := f.fault(r)
	code := func(def http2.ErrCode) http2.ErrCode {
		if ft.Code != 0 {
			return http2.ErrCode(ft.Code)
		}
		return def
	}
	switch ft.Kind {
	case ResetBefore:
		return hc.fr.WriteRSTStream(id, code(http2.ErrCodeRefusedStream)) == nil
	case ResetAfter:
		f.handle(r)
		return hc.fr.WriteRSTStream(id, code(http2.ErrCodeProtocol)) == nil
	case GoAwayAfter:
		f.handle(r)
		hc.fr.WriteGoAway(0, http2.ErrCodeNo, nil)
		return false
	case Hang:
		return true // never answered; the client resets the stream
	case Status:
		rec := httptest.NewRecorder()
		writeStatus(rec, ft)
		return hc.respond(id, rec.Code, rec.Header(), rec.Body.Bytes(), -1)
	case Truncate:
		rec := f.handle(r)
		body := rec.Body.Bytes()
		if !hc.respond(id, rec.Code, rec.Header(), body[:len(body)/2], len(body)) {
			return false
		}
		return hc.fr.WriteRSTStream(id, http2.ErrCodeInternal) == nil
	case Rewrite:
		rec := f.handle(r)
		return hc.respond(id, rec.Code, rec.Header(), []byte(ft.Body), -1)
	}
	rec := f.handle(r)
	return hc.respond(id, rec.Code, rec.Header(), rec.Body.Bytes(), -1)
}

// respond writes an answer; announced >= 0 sends that Content-Length and
// leaves the stream open (the body is cut short).
func (hc *h2conn) respond(id uint32, status int, h http.Header, body []byte, announced int) bool {
	hc.hbuf.Reset()
	hc.henc.WriteField(hpack.HeaderField{Name: ":status", Value: itoa(status)})
	for k, vs := range h {
		lk := strings.ToLower(k)
		if lk == "content-length" || lk == "connection" || lk == "transfer-encoding" {
			continue
		}
		for _, v := range vs {
			hc.henc.WriteField(hpack.HeaderField{Name: lk, Value: v})
		}
	}
	n := len(body)
	if announced >= 0 {
		n = announced
	}
	hc.henc.WriteField(hpack.HeaderField{Name: "content-length", Value: itoa(n)})
	end := len(body) == 0 && announced < 0
	if hc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hc.hbuf.Bytes(), EndHeaders: true, EndStream: end}) != nil {
		return false
	}
	for len(body) > 0 {
		chunk := body[:min(len(body), 16384)]
		body = body[len(chunk):]
		last := len(body) == 0 && announced < 0
		if hc.fr.WriteData(id, last, chunk) != nil {
			return false
		}
	}
	return true
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
