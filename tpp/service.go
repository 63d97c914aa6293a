package tpp

import (
	"context"
	"crypto/x509"
	"encoding/asn1"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/pathseg"
	"github.com/tppkit/psd2/internal/servicecall"
)

// Service reads and registers the TPP's contact e-mail address at the
// bank. Every call goes through the [client.Client] it was made with. A
// Service is safe for concurrent use.
type Service struct {
	c  *client.Client
	id string // WithTPPID; "" takes DefaultTPPID of the current certificate
}

// Option configures a [Service] in [New].
type Option func(*Service) error

// WithTPPID sets the tppId of the path instead of [DefaultTPPID] of the
// client's certificate, for a bank that identifies TPPs in another form.
// It must be 1 to 128 bytes of UTF-8 without a control character or
// surrounding spaces, and not a dot segment: an id that no path can
// carry. [New] refuses another with a [*client.ValidationError] (field
// "tppId"), as every call would be refused, which quotes nothing of it.
func WithTPPID(id string) Option {
	return func(s *Service) error {
		if len(id) > maxTPPID {
			return &client.ValidationError{Field: "tppId", Reason: "WithTPPID: longer than " + strconv.Itoa(maxTPPID) + " bytes"}
		}
		if p := pathseg.Problem(id); p != "" {
			return &client.ValidationError{Field: "tppId", Reason: "WithTPPID: " + p}
		}
		s.id = id
		return nil
	}
}

// maxTPPID bounds a tppId given with WithTPPID: an organizationIdentifier
// is far shorter, so a longer value is a mistake.
const maxTPPID = 128

// New returns a Service that sends its calls through c.
func New(c *client.Client, opts ...Option) (*Service, error) {
	if c == nil {
		return nil, errNoClient
	}
	s := &Service{c: c}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

var errNoClient = errors.New("tpp: no client")

// client is the Service's client, nil for a nil Service: the call
// helper (servicecall.Do) refuses both alike, before sending.
func (s *Service) client() *client.Client {
	if s == nil {
		return nil
	}
	return s.c
}

// oidOrganizationIdentifier is the X.520 organizationIdentifier attribute
// (2.5.4.97), which holds the TPP's PSD2 authorisation number in an eIDAS
// certificate (ETSI TS 119 495), e.g. PSDNO-FSA-987654321.
var oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

// DefaultTPPID returns the tppId the bank is assumed to expect for the
// TPP with the signing certificate cert: the organizationIdentifier of its
// subject, as written there (for example PSDNO-FSA-987654321).
//
// ASSUMPTION: the platform's documentation calls the tppId "the official
// id of the TPP as specified in the TPP certificate"; one of its pages
// shows it without the PSD prefix (NO-FSA-987654321). This function is
// the one place that decides the default; [WithTPPID] overrides it.
func DefaultTPPID(cert *x509.Certificate) (string, error) {
	if cert == nil {
		return "", &client.ValidationError{Field: "tppId", Reason: "no signing certificate"}
	}
	for _, n := range cert.Subject.Names {
		if n.Type.Equal(oidOrganizationIdentifier) {
			if v, ok := n.Value.(string); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v), nil
			}
		}
	}
	return "", &client.ValidationError{Field: "tppId",
		Reason: "the signing certificate has no organizationIdentifier; set the tppId with WithTPPID"}
}

// ID returns the tppId the Service puts in the path: the one of
// [WithTPPID], else [DefaultTPPID] of the client's current signing
// certificate.
func (s *Service) ID() (string, error) {
	if s == nil || s.c == nil {
		return "", errNoClient
	}
	if s.id != "" {
		return s.id, nil
	}
	creds := s.c.Credentials()
	if creds == nil {
		return DefaultTPPID(nil)
	}
	return DefaultTPPID(creds.Certificate)
}

// Contact is the TPP's contact information at the bank.
type Contact struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// Email is the registered address. An answer's address longer than
	// an e-mail address may be (254 characters, RFC 5321) is refused
	// with a [*client.ValueTooLongError], not kept.
	Email string `json:"email"`
}

// UnmarshalJSON decodes the bank's contact answer, its address held to
// the 254 characters of an e-mail address (maxEmail, the bound
// [ValidateEmail] holds the TPP's own to): a longer one is a
// [*client.ValueTooLongError] quoting nothing of it. An address holding
// a control character (a line break, a terminal escape) or bytes that
// are not UTF-8 (U+FFFD in their place) is no address any mail system
// takes, nor one to show or store: it is a [*client.MalformedValueError]
// quoting nothing of it. The address is not held to ValidateEmail's
// stricter form: a bank may keep an address the SDK would not send.
func (c *Contact) UnmarshalJSON(data []byte) error {
	type plain Contact
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if err := client.CheckLength("email", v.Email, maxEmail); err != nil {
		return err
	}
	if err := client.CheckPrintable("email", v.Email); err != nil {
		return err
	}
	*c = Contact(v)
	return nil
}

// ErrNotRegistered matches the error of [Service.Contact] when the bank
// has no contact address for the TPP. The error also unwraps to the
// bank's [*client.Error] when the bank answered 404.
var ErrNotRegistered = errors.New("tpp: no contact information registered")

// notRegisteredError is ErrNotRegistered with the bank's answer.
type notRegisteredError struct {
	op  string
	err error // the bank's *client.Error, or nil for an empty address
}

func (e *notRegisteredError) Error() string {
	return e.op + ": no contact information registered"
}

func (e *notRegisteredError) Is(target error) bool { return target == ErrNotRegistered }

func (e *notRegisteredError) Unwrap() error { return e.err }

// operation declares op on /v1/tpps/{tppId}/contact-information: the
// client checks and escapes the tppId, and refuses the call when the
// Service has none (ID's error).
func (s *Service) operation(op, method string) client.Operation {
	id, err := s.ID()
	return client.Operation{Name: op, Method: method, Path: "/v1/tpps/{tppId}/contact-information",
		Params: map[string]string{"tppId": id}, Refuse: err, Statuses: contactStatuses}
}

// contactStatuses are the answers docs/interface.md section 10 "Paths"
// names for reading and registering the contact address: 200. Another
// 2xx is a [*client.UnexpectedStatusError]: the bank did not answer as
// the interface says, so neither the address nor its absence is known.
var contactStatuses = []int{http.StatusOK}

// Contact returns the contact address registered for the TPP (GET
// /v1/tpps/{tppId}/contact-information). With none registered the error
// matches [ErrNotRegistered]: the bank answers 404 (as the emulator does)
// or, possibly, an empty address; both are reported the same way. The
// answer is 200; another 2xx status is a [*client.UnexpectedStatusError]. A bank
// that does not offer the TPP dialogue answers 404 too; errors.As gives
// its [*client.Error] to tell them apart by code.
func (s *Service) Contact(ctx context.Context, ro ...client.RequestOption) (*Contact, error) {
	const op = "tpp.Contact"
	out, _, err := servicecall.Do[Contact](ctx, s.client(), s.operation(op, http.MethodGet), ro)
	var ce *client.Error
	if errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound {
		return nil, &notRegisteredError{op: op, err: err}
	}
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(out.Email) == "" {
		return nil, &notRegisteredError{op: op}
	}
	return out, nil
}

// SetContact registers email as the TPP's contact address (PUT
// /v1/tpps/{tppId}/contact-information, body {"email": "..."}), replacing
// the address registered before, and returns the bank's answer (the
// registered address; email when the 200 answer has no body). Another
// 2xx status than 200 is a [*client.UnexpectedStatusError]. Use an
// official, non-personal address of the TPP.
//
// Before sending, the address is checked with [ValidateEmail]; a failure
// is a [*client.ValidationError] and nothing is sent
// ([client.WithoutValidation] skips the check). The request is
// repeatable: the client may send it again after a transport error or a
// 5xx answer.
func (s *Service) SetContact(ctx context.Context, email string, ro ...client.RequestOption) (*Contact, error) {
	const op = "tpp.SetContact"
	operation := s.operation(op, http.MethodPut)
	operation.Body = Contact{Email: email}
	// Registering the same address again changes nothing.
	operation.Repeatable = true
	operation.Validate = func(*client.Call) error { return ValidateEmail(email) }
	out, _, err := servicecall.Do[Contact](ctx, s.client(), operation, ro)
	if err != nil {
		return nil, err
	}
	if out.Email == "" {
		out.Email = email
	}
	return out, nil
}
