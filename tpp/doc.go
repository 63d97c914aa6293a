// Package tpp is the TPP dialogue: the TPP's own contact e-mail address
// at the bank, which the bank uses to reach the TPP (an official,
// non-personal address; one per TPP).
//
// A [Service] describes each call and sends it through a [client.Client],
// signed like every other request; no PSU takes part.
//
//	svc, err := tpp.New(c)
//	if err != nil {
//		return err
//	}
//	// Every call carries TPP-Redirect-URI: here per call, or once for
//	// all with client.WithDefaults(client.WithRedirectURI(cb)).
//	contact, err := svc.SetContact(ctx, "psd2-operations@tpp.example", client.WithRedirectURI(cb))
//	contact, err = svc.Contact(ctx, client.WithRedirectURI(cb))
//
// # Registering
//
// [Service.SetContact] (PUT
// /v1/tpps/{tppId}/contact-information, body {"email": "..."}) registers
// the address, replacing the one registered before. The request creates
// nothing that could be doubled, so the client may repeat it after a
// transport error or a 5xx answer like a GET.
//
// # Reading
//
// [Service.Contact] (GET on the same path) returns the registered
// address. A TPP reads only its own: another TPP's id is refused (403).
// When no address is registered yet the error matches [ErrNotRegistered],
// whether the bank answers 404 or an empty address.
//
// # The tppId
//
// By default the organizationIdentifier (OID 2.5.4.97) of the
// subject of the client's signing certificate, for example
// PSDNO-FSA-987654321 ([DefaultTPPID]). That the bank expects this form is
// an assumption: a bank that wants another form (its portal shows
// NO-FSA-987654321) is served with [WithTPPID].
//
// # Answers
//
// Both calls succeed only with the 200 the interface names; another 2xx
// is a [*client.UnexpectedStatusError]. A [Contact] prints (every fmt
// verb, String, log/slog) with its address redacted, since a TPP may
// have registered a person's address; its JSON and Email keep it.
//
// # Validation
//
// Before sending, SetContact checks the address with
// [ValidateEmail]; a failure is a [*client.ValidationError] (errors.Is
// [client.ErrValidation]) and nothing is sent. [client.WithoutValidation]
// sends the address unchecked.
package tpp
