package refresh

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
)

// Remember lists the accounts and card accounts the PSU of s consented
// to and returns a copy of s that remembers their ids
// (sca.Session.WithAccounts), for background refreshes after the hour in
// which the bank allows listing them (docs/interface.md section 3). Call
// it right after the SCA, while the session's SCA is valid, and store the
// returned session (sca.SaveSession, under the session's Key).
//
// present carries the PSU's request data when the PSU is present (at
// least the IP address), nil otherwise; listing accounts does not count
// against the without-PSU budget either way. A bank that offers no card
// accounts (accounts.ErrCardAccountsNotSupported) gives a session without
// card account ids. Deleted accounts are left out. An error of the bank
// is returned as is: client.ErrSCARequired when the hour has passed. A
// listing holding a resourceId no later call could name is refused by
// the accounts service (client.ErrMalformedValue, client.ErrValueTooLong)
// and nothing is remembered; one of more than sca.MaxAccounts accounts is
// refused by sca.Session.WithAccounts.
func Remember(ctx context.Context, svc *accounts.Service, s *sca.Session, present *client.PSU) (*sca.Session, error) {
	if svc == nil {
		return nil, errors.New("refresh: Remember needs an accounts.Service")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	ro := s.RequestOptions(present)
	list, err := svc.List(ctx, nil, ro)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list))
	for _, a := range list {
		if a.ResourceID != "" && a.Status != "deleted" {
			ids = append(ids, a.ResourceID)
		}
	}
	cards, err := svc.CardAccounts(ctx, ro)
	if err != nil && !errors.Is(err, accounts.ErrCardAccountsNotSupported) {
		return nil, err
	}
	cardIDs := make([]string, 0, len(cards))
	for _, c := range cards {
		if c.ResourceID != "" && c.Status != "deleted" {
			cardIDs = append(cardIDs, c.ResourceID)
		}
	}
	out, err := s.WithAccounts(ids, cardIDs)
	if err != nil {
		return nil, fmt.Errorf("refresh: Remember: %w", err)
	}
	return out, nil
}

// JobsFrom yields a [Job] for every account and card account that each
// session of sessions remembers (sca.Session.AccountIDs and
// CardAccountIDs, see [Remember]), lazily, one session at a time: give it
// sca.Manager.Sessions or sca.ListSessions and hand the result to
// [Refresher.Run] to refresh every consented account of a store in flat
// memory. Each session is checked once, as [NewJob] checks it, for all
// its jobs, which share its request options.
//
// prepare, when not nil, is called with each job before it is yielded, to
// set what the TPP keeps per account (the Cursor of the account's last
// [Result], Want, Since, Force); when it returns false the job is
// skipped. Without it, every job reads [Both] with a zero Cursor.
//
// A session that remembers no accounts gives no job. An error of
// sessions (a stored session that cannot be read) and a session that is
// not valid (its error matches sca.ErrInvalidSession: the PSU must go
// through SCA again) are passed to failed, and the sessions after them
// still give their jobs; with a nil failed they are skipped. A session
// whose consent has ended still gives its jobs: they end
// [ReconnectNeeded] without a call, which tells the TPP to ask the PSU
// for a new consent. Once a job of a session meets the bank's answer
// that the consent has ended (401 CONSENT_EXPIRED, 403 CONSENT_UNKNOWN),
// the session's later jobs end so too, without a call
// ([ErrConsentEnded]); store what the answer teaches with
// sca.StoreConsentEnd (the job's Session, the Result's Err), so that the
// next run makes no call either, and a session a re-consent stored
// meanwhile is kept.
//
// An account that several sessions share (a joint account, a company's
// account seen by two employees) gives a job for each of them, and its
// budget is one: to refresh it once per run, let prepare skip an account
// id already seen in the run (JobsFrom keeps no set of ids, so that its
// memory stays flat).
func JobsFrom(sessions iter.Seq2[*sca.Session, error], prepare func(*Job) bool, failed func(error)) iter.Seq[Job] {
	return func(yield func(Job) bool) {
		if sessions == nil {
			return
		}
		for s, err := range sessions {
			if err != nil || s == nil {
				if failed != nil && err != nil {
					failed(err)
				}
				continue
			}
			n := len(s.AccountIDs) + len(s.CardAccountIDs)
			if n == 0 {
				continue
			}
			h, err := newHolder(s)
			if err != nil {
				if failed != nil {
					failed(fmt.Errorf("refresh: %w", err))
				}
				continue
			}
			for i := range n {
				// The ids are the session's own: covered, and checked
				// by Validate.
				j := Job{acct: &target{holder: h}}
				if i < len(s.AccountIDs) {
					j.acct.id = s.AccountIDs[i]
				} else {
					j.acct.id, j.acct.card = s.CardAccountIDs[i-len(s.AccountIDs)], true
				}
				if prepare != nil && !prepare(&j) {
					continue
				}
				if !yield(j) {
					return
				}
			}
		}
	}
}
