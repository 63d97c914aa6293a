package otel

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
)

// Gauges are callbacks the TPP wires to its own state; each is read at
// every collection of the metrics (a Prometheus scrape, an export). A nil
// callback leaves its gauge out; a callback's error goes to OpenTelemetry's
// global error handler (otel.Handle), and the other gauges are still
// observed. They return counts, dates and the TPP's own names of banks
// and certificate roles only: no callback can hand a personal value to a
// metric.
type Gauges struct {
	// ConsentEnds returns the end (validUntil) of every live consent the
	// TPP keeps. [MetricConsents] counts them by days left.
	ConsentEnds func(ctx context.Context) ([]time.Time, error)
	// Certificates returns the certificates whose expiry to watch by role
	// ("signing", "qwac"). [MetricCertificateDays] reports the days left
	// of each, by role and serial number ([AttrCertificateSerial]);
	// during a renewal, give the new certificate a role of its own
	// ("signing-next") to watch both. [ClientCertificates] reads a
	// client's signing certificate.
	Certificates func(ctx context.Context) (map[string]*x509.Certificate, error)
	// InDoubt returns the number of payment journal entries in doubt.
	// [JournalInDoubt] counts a journal.Journal's.
	InDoubt func(ctx context.Context) (int64, error)
	// Health returns the health of the banks the TPP's clients call
	// (client.Health.Banks). [MetricBankBreaker], [MetricBankRequests]
	// and [MetricBankLatency] report it by bank ([AttrBank]).
	Health func() []client.BankHealth
	// Queues returns the state of each bank's refresh queue on River
	// (the pgstore module's riverrefresh.Engine.QueueStats, through the
	// few lines [QueueState] shows). [MetricQueueJobs] counts each
	// queue's jobs by state ([AttrJobState]) and [MetricQueuePaused]
	// reports whether it is paused, by bank ([AttrBank]).
	Queues func(ctx context.Context) ([]QueueState, error)
	// Now is the clock the days are counted on (time.Now when nil).
	Now func() time.Time
}

// Attribute keys of the gauges.
const (
	// AttrDaysLeft buckets the days left of a consent: "expired", "0-6",
	// "7-29", "30-89", "90+".
	AttrDaysLeft = attribute.Key("psd2.consent.days_left")
	// AttrCertificateRole is the role of a certificate ("signing", "qwac").
	AttrCertificateRole = attribute.Key("psd2.certificate.role")
	// AttrCertificateSerial is a certificate's serial number, in
	// upper-case hexadecimal as the keyId writes it ("SN=" of
	// docs/interface.md section 5.4), so that two certificates of one
	// role, before and after a renewal, are told apart. It is public: the
	// certificate goes to the bank with every request.
	AttrCertificateSerial = attribute.Key("psd2.certificate.serial")
	// AttrBankResult is what became of requests to a bank
	// ([MetricBankRequests]): "answered", "5xx", "timeout", "no_answer",
	// "429" (counted among answered too).
	AttrBankResult = attribute.Key("psd2.bank.result")
	// AttrQuantile is a latency quantile: "p50", "p95", "p99".
	AttrQuantile = attribute.Key("psd2.quantile")
	// AttrRoundResult is a refresh round's result ([RoundResult]).
	AttrRoundResult = attribute.Key("psd2.refresh.result")
	// AttrJobState is the River state of a bank queue's refresh jobs
	// ([MetricQueueJobs]): "available" (waiting for a worker),
	// "running", "scheduled" (snoozed: a bank's pause, a budget spent, a
	// spacing; or planned ahead), "retryable" (an attempt failed; the
	// next waits), "discarded" (out of attempts), "cancelled" (ended by
	// the engine: a reconnect needed, a refusal).
	AttrJobState = attribute.Key("psd2.refresh.job_state")
	// AttrGauge names the gauge [MetricGaugeReadable] reports on:
	// "consents", "certificates", "journal_in_doubt" or "queues".
	AttrGauge = attribute.Key("psd2.gauge")
)

// QueueState is one bank's refresh queue, for [Gauges.Queues]: how many
// of its jobs are in each River state an on-call engineer acts on
// (completed jobs are not counted), and whether it is paused. Bank names
// the queue's bank, as the engine was given it: give the engine the
// banks' directory ids (banks.Bank.ID), so that the psd2.bank of these
// points is the one of the clients' metrics and psd2 -bank takes it.
//
// The pgstore module's River engine reads them
// (riverrefresh.Engine.QueueStats). Neither module imports the other, so
// the TPP's program, which imports both, hands them over:
//
//	Queues: func(ctx context.Context) ([]otel.QueueState, error) {
//		stats, err := engine.QueueStats(ctx) // engine: a *riverrefresh.Engine
//		out := make([]otel.QueueState, len(stats))
//		for i, s := range stats {
//			out[i] = otel.QueueState{Bank: s.Bank, Available: s.Available, Running: s.Running,
//				Scheduled: s.Scheduled, Retryable: s.Retryable, Discarded: s.Discarded,
//				Cancelled: s.Cancelled, Paused: !s.PausedAt.IsZero()}
//		}
//		return out, err
//	},
//
// The queues are in the shared database: every replica reads the same
// counts, so register the gauge in one of them, or in each and
// aggregate with max (not sum) by psd2.bank and state.
type QueueState struct {
	// Bank is the bank's name in the engine (riverrefresh.Config.Banks).
	Bank string
	// The queue's jobs by River state ([AttrJobState]).
	Available, Running, Scheduled, Retryable, Discarded, Cancelled int64
	// Paused is true while the queue is paused.
	Paused bool
}

// jobStates are the values of AttrJobState, in order, with the count of
// each in a QueueState.
var jobStates = []struct {
	name  string
	count func(QueueState) int64
}{
	{"available", func(q QueueState) int64 { return q.Available }},
	{"running", func(q QueueState) int64 { return q.Running }},
	{"scheduled", func(q QueueState) int64 { return q.Scheduled }},
	{"retryable", func(q QueueState) int64 { return q.Retryable }},
	{"discarded", func(q QueueState) int64 { return q.Discarded }},
	{"cancelled", func(q QueueState) int64 { return q.Cancelled }},
}

// daysLeftBuckets are the values of AttrDaysLeft, in order.
var daysLeftBuckets = []string{"expired", "0-6", "7-29", "30-89", "90+"}

// daysLeftBucket places an end at now into daysLeftBuckets.
func daysLeftBucket(end, now time.Time) int {
	d := end.Sub(now)
	switch {
	case d <= 0:
		return 0
	case d < 7*24*time.Hour:
		return 1
	case d < 30*24*time.Hour:
		return 2
	case d < 90*24*time.Hour:
		return 3
	}
	return 4
}

// RegisterGauges registers g's observable gauges on the observer's meter.
// Unregister the returned registration to stop them.
func (o *Observer) RegisterGauges(g Gauges) (metric.Registration, error) {
	now := g.Now
	if now == nil {
		now = time.Now
	}
	consents, err1 := o.meter.Int64ObservableGauge(MetricConsents, metric.WithUnit("{consent}"),
		metric.WithDescription(descriptions[MetricConsents]))
	certDays, err2 := o.meter.Float64ObservableGauge(MetricCertificateDays, metric.WithUnit("d"),
		metric.WithDescription(descriptions[MetricCertificateDays]))
	inDoubt, err3 := o.meter.Int64ObservableGauge(MetricJournalInDoubt, metric.WithUnit("{payment}"),
		metric.WithDescription(descriptions[MetricJournalInDoubt]))
	breaker, err4 := o.meter.Int64ObservableGauge(MetricBankBreaker, metric.WithDescription(descriptions[MetricBankBreaker]))
	requests, err5 := o.meter.Int64ObservableGauge(MetricBankRequests, metric.WithUnit("{request}"),
		metric.WithDescription(descriptions[MetricBankRequests]))
	latency, err6 := o.meter.Float64ObservableGauge(MetricBankLatency, metric.WithUnit("s"),
		metric.WithDescription(descriptions[MetricBankLatency]))
	queueJobs, err7 := o.meter.Int64ObservableGauge(MetricQueueJobs, metric.WithUnit("{job}"),
		metric.WithDescription(descriptions[MetricQueueJobs]))
	queuePaused, err8 := o.meter.Int64ObservableGauge(MetricQueuePaused,
		metric.WithDescription(descriptions[MetricQueuePaused]))
	readable, err9 := o.meter.Int64ObservableGauge(MetricGaugeReadable,
		metric.WithDescription(descriptions[MetricGaugeReadable]))
	if err := errors.Join(err1, err2, err3, err4, err5, err6, err7, err8, err9); err != nil {
		return nil, err
	}
	insts := []metric.Observable{readable}
	if g.ConsentEnds != nil {
		insts = append(insts, consents)
	}
	if g.Certificates != nil {
		insts = append(insts, certDays)
	}
	if g.InDoubt != nil {
		insts = append(insts, inDoubt)
	}
	if g.Health != nil {
		insts = append(insts, breaker, requests, latency)
	}
	if g.Queues != nil {
		insts = append(insts, queueJobs, queuePaused)
	}
	if len(insts) == 1 {
		return nil, errors.New("otel: RegisterGauges: no callback set")
	}
	return o.meter.RegisterCallback(func(ctx context.Context, obs metric.Observer) error {
		t := now()
		var errs []error
		// read reports on MetricGaugeReadable whether the gauge name read
		// its source: a gauge that could not is left out, so its points
		// go stale rather than read 0, and this one says why they are
		// missing.
		read := func(name string, err error) {
			ok := int64(1)
			if err != nil {
				ok = 0
				errs = append(errs, err)
			}
			obs.ObserveInt64(readable, ok, metric.WithAttributes(AttrGauge.String(name)))
		}
		if g.ConsentEnds != nil {
			ends, err := g.ConsentEnds(ctx)
			read("consents", err)
			if err == nil {
				counts := make([]int64, len(daysLeftBuckets))
				for _, end := range ends {
					counts[daysLeftBucket(end, t)]++
				}
				for i, n := range counts {
					obs.ObserveInt64(consents, n, metric.WithAttributes(AttrDaysLeft.String(daysLeftBuckets[i])))
				}
			}
		}
		if g.Certificates != nil {
			certs, err := g.Certificates(ctx)
			read("certificates", err)
			for role, c := range certs {
				if c == nil {
					continue
				}
				days := math.Floor(c.NotAfter.Sub(t).Hours()/24*100) / 100
				obs.ObserveFloat64(certDays, days, metric.WithAttributes(AttrCertificateRole.String(role),
					AttrCertificateSerial.String(serial(c))))
			}
		}
		if g.InDoubt != nil {
			n, err := g.InDoubt(ctx)
			read("journal_in_doubt", err)
			// With an entry the journal cannot read, n counts it and
			// every other: a count the operator can act on, beside the
			// failed read.
			if err == nil || errors.Is(err, journal.ErrEntryUnreadable) {
				obs.ObserveInt64(inDoubt, n)
			}
		}
		if g.Health != nil {
			for _, h := range o.healthByLabel(g.Health()) {
				bank := AttrBank.String(h.Bank)
				obs.ObserveInt64(breaker, int64(h.State), metric.WithAttributes(bank))
				noAnswer := h.Requests - h.Answered - h.Status5xx - h.Timeouts
				for _, r := range []struct {
					name string
					n    int
				}{{"answered", h.Answered}, {"5xx", h.Status5xx}, {"timeout", h.Timeouts}, {"no_answer", noAnswer}, {"429", h.Status429}} {
					obs.ObserveInt64(requests, int64(r.n), metric.WithAttributes(bank, AttrBankResult.String(r.name)))
				}
				for _, q := range []struct {
					name string
					d    time.Duration
				}{{"p50", h.P50}, {"p95", h.P95}, {"p99", h.P99}} {
					obs.ObserveFloat64(latency, q.d.Seconds(), metric.WithAttributes(bank, AttrQuantile.String(q.name)))
				}
			}
		}
		if g.Queues != nil {
			queues, err := g.Queues(ctx)
			read("queues", err)
			if err == nil {
				for _, q := range queuesByLabel(o, queues) {
					bank := AttrBank.String(q.Bank)
					for _, st := range jobStates {
						obs.ObserveInt64(queueJobs, st.count(q), metric.WithAttributes(bank, AttrJobState.String(st.name)))
					}
					paused := int64(0)
					if q.Paused {
						paused = 1
					}
					obs.ObserveInt64(queuePaused, paused, metric.WithAttributes(bank))
				}
			}
		}
		if err := errors.Join(errs...); err != nil {
			// The other gauges are observed: report the error to the
			// global handler rather than fail the whole collection.
			otel.Handle(fmt.Errorf("psd2 otel gauges: %w", err))
		}
		return nil
	}, insts...)
}

// serial is c's serial number as the keyId writes it: upper-case
// hexadecimal without padding ("" without one).
func serial(c *x509.Certificate) string {
	if c.SerialNumber == nil {
		return ""
	}
	return strings.ToUpper(c.SerialNumber.Text(16))
}

// ClientCertificates reads the signing certificate c signs with now,
// for [Gauges.Certificates].
func ClientCertificates(c *client.Client) func(context.Context) (map[string]*x509.Certificate, error) {
	return func(context.Context) (map[string]*x509.Certificate, error) {
		cr := c.Credentials()
		if cr == nil || cr.Certificate == nil {
			return nil, nil
		}
		return map[string]*x509.Certificate{"signing": cr.Certificate}, nil
	}
}

// JournalInDoubt counts the payments in doubt of j, for [Gauges.InDoubt]:
// the entries journal.Journal.InDoubt yields, and those whose entry is
// lost, only their open marker left (journal.Journal.Lost), whose payment
// may exist as well. It reads the whole journal at each collection.
//
// An entry the journal cannot read (journal.ErrEntryUnreadable) counts
// as one in doubt, and the entries after it are counted too; the count
// is then returned with the first such error, which the gauge records
// as a failed read while it still observes the count.
func JournalInDoubt(j *journal.Journal) func(context.Context) (int64, error) {
	return func(ctx context.Context) (int64, error) {
		var n int64
		var unread error
		for _, err := range j.InDoubt(ctx) {
			if errors.Is(err, journal.ErrEntryUnreadable) {
				n++
				unread = cmp.Or(unread, err)
				continue
			}
			if err != nil {
				return n, err
			}
			n++
		}
		for _, err := range j.Lost(ctx) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, unread
	}
}

// RoundResult is how a refresh round ended.
type RoundResult string

// Refresh round results.
const (
	RoundDone    RoundResult = "done"
	RoundSnoozed RoundResult = "snoozed" // put off: budget spent, bank busy
	RoundFailed  RoundResult = "failed"
)

// RecordRefreshRound counts one refresh round and how late it started
// after its planned time (started minus planned; a round that started
// early counts 0). The TPP calls it from its refresh job, for example in
// a refresh.WithProgress callback or at the end of a River job.
func (o *Observer) RecordRefreshRound(ctx context.Context, result RoundResult, planned, started time.Time) {
	switch result {
	case RoundDone, RoundSnoozed, RoundFailed:
	default:
		result = RoundFailed
	}
	set := metric.WithAttributes(AttrRoundResult.String(string(result)))
	o.rounds.Add(ctx, 1, set)
	o.lateness.Record(ctx, max(started.Sub(planned), 0).Seconds(), set)
}

// bankLabel is the psd2.bank value of a client.BankHealth's Bank: the
// directory id given with client.WithBank, else the base URL's host, as
// the observer's other metrics name it.
func bankLabel(bank string) string {
	if name, ok := strings.CutPrefix(bank, "bank:"); ok {
		return name
	}
	if u, err := url.Parse(bank); err == nil && u.Host != "" {
		return u.Host
	}
	return bank
}

// breakerRank orders breaker states from healthy to the worst: closed,
// half-open, open.
func breakerRank(s client.BreakerState) int {
	switch s {
	case client.BreakerClosed:
		return 0
	case client.BreakerHalfOpen:
		return 1
	}
	return 2
}

// healthByLabel returns hs with one entry per psd2.bank value (in Bank):
// the entries of one label (one bank's clients of two TPP identities,
// two base URLs on one host, banks past the limit) merged, so that no
// entry's observation overwrites another's: the worst breaker state, the
// requests summed, the highest of each latency quantile.
func (o *Observer) healthByLabel(hs []client.BankHealth) []client.BankHealth {
	out := make([]client.BankHealth, 0, len(hs))
	at := make(map[string]int, len(hs))
	for _, h := range hs {
		label := o.bankValue(bankLabel(h.Bank))
		i, ok := at[label]
		if !ok {
			at[label] = len(out)
			out = append(out, client.BankHealth{Bank: label, State: h.State, Requests: h.Requests, Answered: h.Answered,
				Status5xx: h.Status5xx, Timeouts: h.Timeouts, Status429: h.Status429, P50: h.P50, P95: h.P95, P99: h.P99})
			continue
		}
		m := &out[i]
		if breakerRank(h.State) > breakerRank(m.State) {
			m.State = h.State
		}
		m.Requests += h.Requests
		m.Answered += h.Answered
		m.Status5xx += h.Status5xx
		m.Timeouts += h.Timeouts
		m.Status429 += h.Status429
		m.P50, m.P95, m.P99 = max(m.P50, h.P50), max(m.P95, h.P95), max(m.P99, h.P99)
	}
	return out
}

// queuesByLabel returns qs with one entry per psd2.bank value: the
// queues of one label (banks past the limit) merged, their jobs summed,
// paused if any is.
func queuesByLabel(o *Observer, qs []QueueState) []QueueState {
	out := make([]QueueState, 0, len(qs))
	at := make(map[string]int, len(qs))
	for _, q := range qs {
		q.Bank = o.bankValue(q.Bank)
		i, ok := at[q.Bank]
		if !ok {
			at[q.Bank] = len(out)
			out = append(out, q)
			continue
		}
		m := &out[i]
		m.Available += q.Available
		m.Running += q.Running
		m.Scheduled += q.Scheduled
		m.Retryable += q.Retryable
		m.Discarded += q.Discarded
		m.Cancelled += q.Cancelled
		m.Paused = m.Paused || q.Paused
	}
	return out
}
