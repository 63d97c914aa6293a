package client

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/tppkit/psd2/internal/pathseg"
)

// ErrForeignHost is returned when a link would send a signed request to a
// host other than the base URL's.
var ErrForeignHost = errors.New("client: link points to a host other than the bank's base URL")

// resolve turns an operation path or a link href into the absolute URL to
// call. Relative hrefs ("/v1/...") are placed under the base URL's path
// ("/api"), as the platform's links omit it (docs/interface.md section 10). An absolute href
// must be on the base URL's scheme and host.
func (c *Client) resolve(ref string, query url.Values) (*url.URL, error) {
	if ref == "" {
		return nil, errors.New("client: empty path")
	}
	if strings.ContainsAny(ref, " \r\n\t#") {
		return nil, fmt.Errorf("client: invalid path %q", pathTemplate(ref))
	}
	var u *url.URL
	// p and rawQuery are a relative reference's escaped path and query.
	// A plain one is what url.Parse would read, without parsing it.
	p, rawQuery := ref, ""
	if !plainPath(ref) {
		r, err := url.Parse(ref)
		if err != nil {
			return nil, fmt.Errorf("client: invalid path %q", pathTemplate(ref))
		}
		if r.IsAbs() || r.Host != "" {
			scheme := strings.ToLower(c.base.Scheme)
			if !strings.EqualFold(r.Scheme, scheme) || canonicalHost(scheme, r.Host) != canonicalHost(scheme, c.base.Host) {
				return nil, ErrForeignHost
			}
			// Another spelling of the bank's host (":443", a trailing
			// dot) is sent to the host as the base URL spells it.
			u = r
			if !strings.EqualFold(u.Host, c.base.Host) {
				u.Host = c.base.Host
			}
		}
		p, rawQuery = r.EscapedPath(), r.RawQuery
	}
	if u == nil {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		if c.basePath != "" && !strings.HasPrefix(p, c.basePath+"/") {
			p = c.basePath + p
		}
		// p is escaped already (EscapedPath of a reference and of the
		// base URL): the URL is built from it as url.Parse would build
		// it from the whole string, without parsing it again.
		path, err := url.PathUnescape(p)
		if err != nil {
			return nil, fmt.Errorf("client: invalid path %q", pathTemplate(ref))
		}
		u = &url.URL{Scheme: c.base.Scheme, Host: c.base.Host, Path: path, RawPath: p, RawQuery: rawQuery}
	}
	if len(query) > 0 {
		q := u.Query()
		for k, vs := range query {
			q[k] = vs
		}
		u.RawQuery = q.Encode()
	}
	return u, nil
}

// plainPath reports whether ref is a relative path of letters, digits,
// "-", ".", "_", "~" and "/" only, not starting with "//": url.Parse
// would read it as a path that is its own escaped form.
func plainPath(ref string) bool {
	if strings.HasPrefix(ref, "//") {
		return false
	}
	for i := 0; i < len(ref); i++ {
		switch c := ref[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '/':
		default:
			return false
		}
	}
	return true
}

// expandPath fills the parameters of an operation's path template with
// their values, each checked and escaped as one path segment: the one
// place the SDK puts an id into a path.
func expandPath(tmpl string, params map[string]string) (string, error) {
	if !strings.Contains(tmpl, "{") {
		if len(params) > 0 {
			return "", errors.New("client: path parameters for a path without a template")
		}
		return tmpl, nil
	}
	var b strings.Builder
	b.Grow(len(tmpl) + 64)
	var errs []error
	used := 0
	for rest := tmpl; rest != ""; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return "", errors.New("client: unclosed parameter in path template")
		}
		name := rest[i+1 : i+j]
		b.WriteString(rest[:i])
		rest = rest[i+j+1:]
		v, ok := params[name]
		if !ok {
			errs = append(errs, &ValidationError{Field: name, Reason: "no value for the path parameter"})
			continue
		}
		used++
		if p := pathseg.Problem(v); p != "" {
			errs = append(errs, &ValidationError{Field: name, Reason: p})
			continue
		}
		b.WriteString(pathseg.Escape(v))
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	if used != len(params) {
		return "", errors.New("client: path parameters the template does not name")
	}
	return b.String(), nil
}
