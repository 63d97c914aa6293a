package banks

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tppkit/psd2/internal/boundedfile"
	"github.com/tppkit/psd2/sca"
)

// Group is the alliance a bank belongs to on the platform.
type Group string

// Groups of the directory.
const (
	GroupSpareBank1 Group = "SpareBank 1"
	GroupEika       Group = "Eika"
	GroupOther      Group = "other"
)

// Environment chooses between a bank's production API and its sandbox.
type Environment string

// Environments.
const (
	Production Environment = "production"
	Sandbox    Environment = "sandbox"
)

// DefaultConsentValidity is how long a consent lasts at a bank whose
// entry gives no consentDays: 90 days, the figure a production TPP agent
// for this platform used and the session model docs/interface.md section 8
// observed. The EU rule now allows 180 days; a bank that moved says so in
// its entry (or in the TPP's override file) and [Bank.ConsentValidity]
// returns its figure.
const DefaultConsentValidity = sca.ConsentValidity

// Bank is one bank of the directory. Its fields are facts from public
// sources, each entry with its Source and the date it was last Verified.
type Bank struct {
	// ID is the stable id of the bank in the directory ("sr-bank").
	ID string `json:"id"`
	// Name is the bank's name.
	Name string `json:"name"`
	// Group is SpareBank 1, Eika or other.
	Group Group `json:"group"`
	// Production is the base URL of the bank's production API
	// ("https://<host>/api").
	Production string `json:"production"`
	// Sandbox is the base URL of the bank's sandbox
	// ("https://<host>/api-sandbox").
	Sandbox string `json:"sandbox"`
	// Notes holds what a TPP should know, such as an announced exit from
	// the platform.
	Notes string `json:"notes,omitempty"`
	// ConsentDays is how many days a consent lasts at this bank; 0 means
	// [DefaultConsentValidity]. At most 366 (sca.MaxConsentValidity, the
	// longest sca.WithConsentValidity takes).
	ConsentDays int `json:"consentDays,omitempty"`
	// Source says where the entry comes from.
	Source string `json:"source"`
	// Verified is when the entry was last verified: YYYY, YYYY-MM or
	// YYYY-MM-DD, as precise as its source, and a date that exists (no
	// month 13 or 30 February).
	Verified string `json:"verified"`
	// HostMoved, in a TPP's own file ([Load]), says that the entry points
	// a bank of the default directory at a new host on purpose: the same
	// bank, moved, which keeps its budget and journal (see "Moving a
	// host" in the package doc). Load refuses an entry that changes the
	// host of a bank the directory holds without it.
	HostMoved bool `json:"hostMoved,omitempty"`
}

// maxConsentDays bounds an entry's consentDays: the longest consent the
// sca package's Flow takes (sca.MaxConsentValidity), so that every
// entry's ConsentValidity can be passed to sca.WithConsentValidity.
const maxConsentDays = int(sca.MaxConsentValidity / (24 * time.Hour))

// ConsentValidity is how long a consent granted at SCA lasts at b:
// ConsentDays, else [DefaultConsentValidity]. Pass it to the sca package
// (sca.WithConsentValidity) so that sessions end when this bank ends them.
func (b Bank) ConsentValidity() time.Duration {
	if b.ConsentDays > 0 {
		return time.Duration(b.ConsentDays) * 24 * time.Hour
	}
	return DefaultConsentValidity
}

// BaseURL is b's base URL in env (Production or Sandbox); empty for
// another env.
func (b Bank) BaseURL(env Environment) string {
	switch env {
	case Production:
		return b.Production
	case Sandbox:
		return b.Sandbox
	}
	return ""
}

// Host is the host name of b's production API.
func (b Bank) Host() string {
	u, err := url.Parse(b.Production)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

var (
	idPattern       = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	verifiedPattern = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2})?)?$`)
)

// check reports the first thing wrong with b.
func (b Bank) check() error {
	if !idPattern.MatchString(b.ID) {
		return fmt.Errorf("bank id %q: want lower-case letters, digits and '-', at most 63", b.ID)
	}
	if strings.TrimSpace(b.Name) == "" {
		return fmt.Errorf("bank %s: no name", b.ID)
	}
	switch b.Group {
	case GroupSpareBank1, GroupEika, GroupOther:
	default:
		return fmt.Errorf("bank %s: group %q is not %q, %q or %q", b.ID, b.Group, GroupSpareBank1, GroupEika, GroupOther)
	}
	for _, u := range []struct{ name, v string }{{"production", b.Production}, {"sandbox", b.Sandbox}} {
		p, err := url.Parse(u.v)
		if err != nil || p.Scheme != "https" || p.Host == "" || p.RawQuery != "" || p.Fragment != "" || p.User != nil {
			return fmt.Errorf("bank %s: %s base URL %q is not an https URL without query", b.ID, u.name, u.v)
		}
		if p.Hostname() == "" {
			// "https://:443/api": the client would dial the local machine.
			return fmt.Errorf("bank %s: %s base URL %q names no host", b.ID, u.name, u.v)
		}
		if port := p.Port(); port != "" {
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("bank %s: %s base URL %q: port %s is not 1 to 65535", b.ID, u.name, u.v, port)
			}
		}
	}
	if sameURL(b.Production, b.Sandbox) {
		// Each environment is a scope of its own (Bank.NewClient): one
		// URL for both would split one bank's budget and journal in two.
		return fmt.Errorf("bank %s: the sandbox base URL is the production base URL %q", b.ID, b.Production)
	}
	if b.ConsentDays < 0 || b.ConsentDays > maxConsentDays {
		return fmt.Errorf("bank %s: consentDays %d out of range: 1 to %d, or 0 for the default", b.ID, b.ConsentDays, maxConsentDays)
	}
	if strings.TrimSpace(b.Source) == "" {
		return fmt.Errorf("bank %s: no source", b.ID)
	}
	// Name, notes and source are shown as they are (psd2 banks prints
	// them to a terminal): no control character, which would drive it.
	for _, f := range []struct{ name, v string }{{"name", b.Name}, {"notes", b.Notes}, {"source", b.Source}} {
		if strings.ContainsFunc(f.v, unicode.IsControl) {
			return fmt.Errorf("bank %s: %s holds a control character", b.ID, f.name)
		}
	}
	if !verifiedPattern.MatchString(b.Verified) {
		return fmt.Errorf("bank %s: verified %q is not YYYY, YYYY-MM or YYYY-MM-DD", b.ID, b.Verified)
	}
	if !realDate(b.Verified) {
		return fmt.Errorf("bank %s: verified %q is not a real date (no such year, month or day)", b.ID, b.Verified)
	}
	return nil
}

// realDate reports whether v, which matches verifiedPattern, names a
// year, month or day that exists: month 01-12, a day the month has
// (29 February only in a leap year), year 0001 or later.
func realDate(v string) bool {
	layout := map[int]string{4: "2006", 7: "2006-01", 10: "2006-01-02"}[len(v)]
	t, err := time.Parse(layout, v)
	return err == nil && t.Year() >= 1
}

// Directory is a set of banks by id. The zero value is empty; [Default]
// is the directory the SDK ships. A Directory is immutable and safe for
// concurrent use.
type Directory struct {
	banks []Bank // sorted by ID
}

//go:embed banks.json
var embedded []byte

// file is the JSON form of a directory: the shipped banks.json and a
// TPP's override file.
type file struct {
	Comment string `json:"comment,omitempty"`
	Banks   []Bank `json:"banks"`
}

// Default returns the directory the SDK ships (banks.json, from public
// sources, each entry with its source and verified date).
func Default() *Directory {
	d, err := Parse(embedded)
	if err != nil {
		// The shipped file is checked by the package's tests.
		return &Directory{}
	}
	return d
}

// Parse reads a directory from JSON: {"banks": [{"id": ..., ...}]}. Every
// entry must be complete, ids unique, a bank's sandbox base URL another
// than its production one, and its production base URL no sandbox's (not
// under /api-sandbox: the two URLs swapped would send production calls
// to the sandbox and sandbox calls to production), its consentDays at
// most 366, and its name, notes and source free of control characters.
// Parse refuses what encoding/json
// would take silently, so that nothing in the file is ignored: an
// unknown (or misspelt) field, a member given twice in one object (in
// any case: "banks" and "Banks" are one member), and anything after the
// first JSON value.
func Parse(data []byte) (*Directory, error) {
	d, err := parse(data)
	if err != nil {
		return nil, err
	}
	if err := checkProduction(d.banks); err != nil {
		return nil, err
	}
	return d, nil
}

// parse is Parse but for checkProduction, which Load applies to the
// merged directory, after its own checks.
func parse(data []byte) (*Directory, error) {
	if err := checkJSON(data); err != nil {
		return nil, fmt.Errorf("banks: %w", err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("banks: %w", err)
	}
	d := &Directory{}
	seen := map[string]bool{}
	for _, b := range f.Banks {
		if err := b.check(); err != nil {
			return nil, fmt.Errorf("banks: %w", err)
		}
		if seen[b.ID] {
			return nil, fmt.Errorf("banks: bank id %q twice", b.ID)
		}
		seen[b.ID] = true
		d.banks = append(d.banks, b)
	}
	if err := checkPlaces(d.banks, func(b Bank) bool { return b.HostMoved }); err != nil {
		return nil, err
	}
	slices.SortFunc(d.banks, func(a, b Bank) int { return strings.Compare(a.ID, b.ID) })
	return d, nil
}

// Lookup returns the bank with id, and whether there is one.
func (d *Directory) Lookup(id string) (Bank, bool) {
	if d == nil {
		return Bank{}, false
	}
	i, ok := slices.BinarySearchFunc(d.banks, id, func(b Bank, id string) int { return strings.Compare(b.ID, id) })
	if !ok {
		return Bank{}, false
	}
	return d.banks[i], true
}

// All returns every bank, sorted by id (a copy).
func (d *Directory) All() []Bank {
	if d == nil {
		return nil
	}
	return slices.Clone(d.banks)
}

// Len is the number of banks.
func (d *Directory) Len() int {
	if d == nil {
		return 0
	}
	return len(d.banks)
}

// Merge returns d with the banks of other added: an entry of other
// replaces d's entry with the same id as a whole (give every field), a new
// id extends the directory. d itself is unchanged.
func (d *Directory) Merge(other *Directory) *Directory {
	out := &Directory{}
	for _, b := range d.All() {
		if _, ok := other.Lookup(b.ID); !ok {
			out.banks = append(out.banks, b)
		}
	}
	out.banks = append(out.banks, other.All()...)
	slices.SortFunc(out.banks, func(a, b Bank) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Load returns the [Default] directory overridden and extended by the
// TPP's own JSON file at path (the form of [Parse], as strict), so that a
// changed host, a new bank or a bank's consent validity needs no new
// release of the SDK. An entry that points a bank of the default
// directory at another host (production or sandbox) is refused unless it
// says "hostMoved": true ([Bank.HostMoved]): the id keeps the bank's
// budget and journal, which is right for the same bank at a new address
// and wrong for another bank given an id in use. A file above 4 MiB is
// refused unread.
func Load(path string) (*Directory, error) {
	data, err := boundedfile.Read(path, maxFile)
	if err != nil {
		return nil, fmt.Errorf("banks: %w", err)
	}
	own, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	d := Default()
	for _, b := range own.banks {
		if err := checkMove(d, b); err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, path)
		}
	}
	merged := d.Merge(own)
	// A flag on an id the directory does not hold moves nothing.
	moved := func(b Bank) bool { _, known := d.Lookup(b.ID); return b.HostMoved && known }
	if err := checkPlaces(merged.banks, moved); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	if err := checkProduction(merged.banks); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return merged, nil
}

// checkPlaces refuses two ids at one place: a base URL of one bank (in
// either environment) naming the place of a base URL of another
// (sameURL). Each id is a scope of its own (Bank.NewClient), so two ids
// at one host's API would count one bank's calls without the PSU, and
// journal its payments, in two: the Eika banks share one host and so one
// entry. It is allowed where one of the two is moved there on purpose
// (moved: a bank of the directory given "hostMoved": true, such as two
// banks merging onto one host, each keeping its budget and journal).
func checkPlaces(bs []Bank, moved func(Bank) bool) error {
	first := map[string]Bank{} // place -> the first bank there not moved
	for _, b := range bs {
		if moved(b) {
			continue
		}
		for _, env := range []Environment{Production, Sandbox} {
			p := placeOf(b.BaseURL(env))
			if o, ok := first[p]; ok && o.ID != b.ID {
				return fmt.Errorf("banks: banks %s and %s are at the same place (%s): each id is a scope of its own, which would "+
					"split one host's budget and journal in two; banks sharing a host share one entry (the Eika banks: id eika), "+
					"and a bank of the directory moved there says \"hostMoved\": true", o.ID, b.ID, b.BaseURL(env))
			}
			first[p] = b
		}
	}
	return nil
}

// placeOf is the place a base URL names, as sameURL compares them: its
// host (hostOf) and decoded path without a trailing slash.
func placeOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return hostOf(base) + strings.TrimRight(u.Path, "/")
}

// maxFile bounds the file Load reads: a directory of every bank in
// Europe is some hundreds of KiB; a device or a mistaken file named as
// the directory is refused, not read whole.
const maxFile = 4 << 20

// checkMove refuses b when it points a bank of d at another host without
// saying so (Bank.HostMoved).
func checkMove(d *Directory, b Bank) error {
	old, ok := d.Lookup(b.ID)
	if !ok || b.HostMoved {
		return nil
	}
	for _, env := range []Environment{Production, Sandbox} {
		if from, to := hostOf(old.BaseURL(env)), hostOf(b.BaseURL(env)); from != to {
			return fmt.Errorf("banks: bank %s: the %s host is %s, not %s as in the directory: for the same bank at a new host "+
				"(it keeps its budget and journal) add \"hostMoved\": true to its entry; give another bank an id of its own", b.ID, env, to, from)
		}
	}
	return nil
}

// hostOf is the host of a base URL, in lower case, without a default
// port or a trailing dot.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if p := u.Port(); p != "" && p != "443" {
		host = net.JoinHostPort(host, p)
	}
	return host
}

// sameURL reports whether two base URLs name one place: the same host
// (hostOf) and path, but for a trailing slash.
func sameURL(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && hostOf(a) == hostOf(b) &&
		strings.TrimRight(ua.Path, "/") == strings.TrimRight(ub.Path, "/") // decoded: /%61pi is /api to the server
}

// checkProduction refuses a bank whose production base URL names a
// sandbox (namesSandbox): a production client made from it would send
// production calls to the sandbox, and an entry with its two URLs
// swapped the sandbox client's calls, with test data, to production. It
// runs after checkPlaces, which names the clash of two ids at one place
// first.
func checkProduction(bs []Bank) error {
	for _, b := range bs {
		if namesSandbox(b.Production) {
			return fmt.Errorf("banks: bank %s: the production base URL %q names the sandbox (%s): production is https://<host>%s, "+
				"the sandbox https://<host>%s", b.ID, b.Production, sandboxBase, productionBase, sandboxBase)
		}
	}
	return nil
}

// The base paths of the platform: production at https://<host>/api, the
// sandbox at https://<host>/api-sandbox.
const (
	productionBase = "/api"
	sandboxBase    = "/api-sandbox"
)

// namesSandbox reports whether base URL u lies under a sandbox base
// path: its first path segment, decoded, is api-sandbox in any case.
func namesSandbox(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(strings.TrimLeft(p.Path, "/"), "/")
	return strings.EqualFold("/"+first, sandboxBase)
}

// ErrUnknownBank matches the error for an id the directory does not hold.
var ErrUnknownBank = errors.New("banks: unknown bank")
