package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// link is a _links entry (docs/interface.md section 2.1).
type link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs"`
}

type links map[string]link

func getLink(href string) link { return link{Href: href, Verbs: []string{"GET"}} }

func postLink(href string) link { return link{Href: href, Verbs: []string{"POST"}} }

// encodeJSON renders an answer body: compact (no indentation: a client
// does not read it, and a refresh of many accounts pays for every byte),
// with HTML escaping off so that hrefs keep '&' as the platform writes
// them.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(512)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeJSON writes v as the JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := encodeJSON(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"tppMessages":[{"category":"ERROR","code":"SYSTEM_ERROR","text":"Internal error in the emulator."}]}`)
	}
	writeBody(w, status, b)
}

// writeBody writes an encoded JSON body.
func writeBody(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError writes an error answer with its tppMessages and _links.
func writeError(w http.ResponseWriter, e *apiError) {
	body := struct {
		TPPMessages []tppMessage `json:"tppMessages"`
		Links       links        `json:"_links,omitempty"`
	}{TPPMessages: []tppMessage{e.msg}, Links: e.links}
	writeJSON(w, e.status, body)
}
