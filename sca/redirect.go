package sca

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"slices"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/scalink"
)

// Redirect is the bank's scaRedirect link: the authorisation page to send
// the PSU's browser to (docs/interface.md section 5.8).
type Redirect struct {
	// URL is the absolute https URL of the authorisation page.
	URL *url.URL
	// Verbs are the HTTP verbs the bank listed for the link (usually GET).
	Verbs []string
	// Purpose is what the SCA is for, when the SDK can tell from the
	// answer that carried the link ([Prepared.Redirect], [User]); it decides
	// whether completing the SCA grants the AIS consent ([Purpose]).
	Purpose Purpose
}

// linker is satisfied by client.Links, *client.Error and any answer type
// that exposes its scaRedirect href.
type linker interface{ SCARedirect() string }

// maxFindBody bounds the raw JSON Find parses.
const maxFindBody = 1 << 20

// find looks for the scaRedirect link in an answer of the bank, as
// findLink does, and fills in the link's Purpose from the answer
// ([purposeOf]) when the answer is not a Redirect that already has one.
func find(v any) (Redirect, bool) {
	r, ok := findLink(v)
	if ok && r.Purpose == PurposeUnknown {
		r.Purpose = purposeOf(v)
	}
	return r, ok
}

// findLink looks for the scaRedirect link in an answer of the bank and
// reports whether there is one. v may be:
//
//   - an error: a *client.Error (401 without a valid session) or any error
//     wrapping one, or any error in the chain with a SCARedirect() string
//     method;
//   - a [Redirect] (as [User] returns), client.Links, a client.Link, or any
//     value with a SCARedirect() string method (every answer type of the
//     SDK that can carry the link has one);
//   - a raw JSON body ([]byte, json.RawMessage or string) with
//     _links.scaRedirect.href.
//
// Only an absolute https URL (http on loopback hosts, for the emulator)
// counts: an href that is relative, has user info, or another scheme is
// ignored, so the PSU is never sent somewhere unexpected.
func findLink(v any) (Redirect, bool) {
	switch x := v.(type) {
	case nil:
		return Redirect{}, false
	case Redirect:
		return fromRedirect(x)
	case *Redirect:
		if x == nil {
			return Redirect{}, false
		}
		return fromRedirect(*x)
	case client.Links:
		return fromLink(x[client.LinkSCARedirect])
	case *client.Links:
		if x == nil {
			return Redirect{}, false
		}
		return fromLink((*x)[client.LinkSCARedirect])
	case client.Link:
		return fromLink(x)
	case *client.Link:
		if x == nil {
			return Redirect{}, false
		}
		return fromLink(*x)
	case *client.Error:
		if x == nil {
			return Redirect{}, false
		}
		return fromLink(x.Links[client.LinkSCARedirect])
	case error:
		var ce *client.Error
		if errors.As(x, &ce) && ce != nil {
			if r, ok := fromLink(ce.Links[client.LinkSCARedirect]); ok {
				return r, true
			}
		}
		var l linker
		if errors.As(x, &l) && !isNilPointer(l) {
			return fromHref(l.SCARedirect(), nil)
		}
		return Redirect{}, false
	case json.RawMessage:
		return fromJSON(x)
	case []byte:
		return fromJSON(x)
	case string:
		return fromJSON([]byte(x))
	case linker:
		if isNilPointer(x) {
			return Redirect{}, false
		}
		return fromHref(x.SCARedirect(), nil)
	}
	return Redirect{}, false
}

func fromJSON(b []byte) (Redirect, bool) {
	if len(b) == 0 || len(b) > maxFindBody {
		return Redirect{}, false
	}
	var body struct {
		Links client.Links `json:"_links"`
	}
	if json.Unmarshal(b, &body) != nil {
		return Redirect{}, false
	}
	return fromLink(body.Links[client.LinkSCARedirect])
}

func fromLink(l client.Link) (Redirect, bool) { return fromHref(l.Href, l.Verbs) }

// fromRedirect re-checks a Redirect (for example the one [User] returns).
func fromRedirect(r Redirect) (Redirect, bool) {
	if r.URL == nil {
		return Redirect{}, false
	}
	out, ok := fromHref(r.URL.String(), r.Verbs)
	out.Purpose = r.Purpose
	return out, ok
}

// fromHref validates href as a page the PSU's browser may be sent to
// (the SDK's one rule, scalink.Parse).
func fromHref(href string, verbs []string) (Redirect, bool) {
	u, ok := scalink.Parse(href)
	if !ok {
		return Redirect{}, false
	}
	return Redirect{URL: u, Verbs: slices.Clone(verbs)}, true
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface, reflect.Slice:
		return rv.IsNil()
	}
	return false
}
