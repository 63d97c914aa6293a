package banks

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

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
	// [DefaultConsentValidity].
	ConsentDays int `json:"consentDays,omitempty"`
	// Source says where the entry comes from.
	Source string `json:"source"`
	// Verified is when the entry was last verified: YYYY, YYYY-MM or
	// YYYY-MM-DD, as precise as its source.
	Verified string `json:"verified"`
}

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
	}
	if b.ConsentDays < 0 || b.ConsentDays > 3660 {
		return fmt.Errorf("bank %s: consentDays %d out of range", b.ID, b.ConsentDays)
	}
	if strings.TrimSpace(b.Source) == "" {
		return fmt.Errorf("bank %s: no source", b.ID)
	}
	if !verifiedPattern.MatchString(b.Verified) {
		return fmt.Errorf("bank %s: verified %q is not YYYY, YYYY-MM or YYYY-MM-DD", b.ID, b.Verified)
	}
	return nil
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
// entry must be complete and ids unique; unknown fields are refused, so a
// misspelt field is not silently ignored.
func Parse(data []byte) (*Directory, error) {
	var f file
	dec := json.NewDecoder(strings.NewReader(string(data)))
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
// TPP's own JSON file at path (the form of [Parse]), so that a changed
// host, a new bank or a bank's consent validity needs no new release of
// the SDK.
func Load(path string) (*Directory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("banks: %w", err)
	}
	own, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return Default().Merge(own), nil
}

// ErrUnknownBank matches the error for an id the directory does not hold.
var ErrUnknownBank = errors.New("banks: unknown bank")
