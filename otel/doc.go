// Package otel reports what the SDK does as OpenTelemetry traces and
// metrics. It lives in a module of its own, github.com/tppkit/psd2/otel,
// so that the SDK's core module depends on no OpenTelemetry package: the
// core exposes a seam, [client.Observer], and this package is one
// implementation of it.
//
// Wiring: make an [Observer] with the TPP's providers and give it to
// every client with client.WithObserver:
//
//	obs, err := otel.New(otel.WithTracerProvider(tp), otel.WithMeterProvider(mp))
//	c, err := client.New(baseURL, creds, client.WithObserver(obs))
//
// # Traces
//
// Each operation ([client.Client.Do]: "accounts.Balances",
// "payments.CreateNorwegianDomestic") is a span of kind internal named
// after it, and each attempt a child span of kind client named
// "METHOD route" that follows the HTTP client semantic conventions:
// http.request.method, server.address, server.port, url.template (the
// path with every id replaced by a placeholder, never url.full),
// http.response.status_code, http.request.resend_count from the second
// attempt on, and error.type. The bank's tppMessage codes are in
// psd2.tpp_message.codes, the outcome class in psd2.outcome, whether a
// byte left in psd2.sent. The operation's span carries psd2.operation,
// psd2.bank, psd2.outcome, psd2.attempts, psd2.sent, the status and
// codes it ended with, and psd2.budget.left for a call counted against
// a without-PSU budget. A retried
// GET shows one child per attempt; a payment create shows exactly one,
// since the SDK never sends it twice. An attempt's span is started when
// the attempt starts, before its request is signed
// ([Observer.StartAttempt], a [client.AttemptStarter]), and ended when
// its answer was read: its timestamps are the attempt's own, and the
// request is sent with it in its context, so that spans of an
// instrumented transport are its children. No header is added to the
// request: the bank receives no trace context (the headers are signed,
// and the interface defines none).
//
// # Metrics
//
//   - psd2.client.request.duration (s): each request that left, by
//     psd2.operation, psd2.bank and http.response.status_class;
//   - psd2.client.operation.duration (s) and psd2.client.operations: each
//     operation by operation, bank, psd2.outcome (ok, created,
//     refused, sca_required, rate_limited, budget_refused, not_sent,
//     unknown, failed) and psd2.error.code, the bank's error code from
//     the interface's list ([client.Codes]), "OTHER" for an error answer
//     without one, "none" without an error answer ([AttrErrorCode]);
//   - psd2.budget.calls.spent and psd2.budget.calls.refused: calls
//     counted against, and refused by, the without-PSU budget;
//   - psd2.refresh.rounds and psd2.refresh.start_lateness (s), from
//     [Observer.RecordRefreshRound];
//   - observable gauges read at each collection from callbacks the TPP
//     wires with [Observer.RegisterGauges]: psd2.consents by
//     psd2.consent.days_left, psd2.certificate.days_left by
//     psd2.certificate.role and psd2.certificate.serial (so that the
//     certificates before and after a renewal are told apart),
//     psd2.journal.in_doubt, and from a client.Health (Gauges.Health)
//     psd2.bank.breaker, psd2.bank.requests by psd2.bank.result and
//     psd2.bank.latency by psd2.quantile, each by psd2.bank, and from
//     the River refresh engine's queues (Gauges.Queues)
//     psd2.refresh.queue.jobs by psd2.bank and psd2.refresh.job_state
//     (available, running, scheduled, retryable, discarded, cancelled)
//     and psd2.refresh.queue.paused (1 while paused) by psd2.bank.
//
// psd2.bank names the bank by the name its client was given with
// client.WithBank, the bank's directory id (banks.Bank.ID), so that banks
// behind one host are told apart; a client without one is labelled by
// the host of its base URL. The description of each metric an on-call
// engineer alerts on (the HELP line of a Prometheus scrape) says what to
// do and names the psd2 command to run, such as "psd2 journal list" for
// payments in doubt; the README has the table.
//
// The refresh and payments packages know nothing of this module. The TPP
// wires them: [JournalInDoubt] counts a journal.Journal's entries in
// doubt; [ClientCertificates] reads a client's signing certificate; a
// consent list comes from the TPP's own records; the River engine's
// queues come from the pgstore module's riverrefresh.Engine.QueueStats,
// each turned into a [QueueState] (its comment has the few lines: the
// two modules do not import each other); RecordRefreshRound is
// called where a refresh round ends (a refresh.WithProgress callback,
// the end of a River job), with the time the round was planned for; a
// refresh.Round's Class names the result: [RoundDone] (Done),
// [RoundSnoozed] (BudgetExhausted, and Transient put off until the bank
// may answer: its open circuit breaker, its pause, its 429 with
// Retry-After) or [RoundFailed] (the others).
//
// # Personal data
//
// The events this package receives have no field that can hold a PSU
// id, a session id, an account id, an IP address or SCA state (see
// [client.Observer]); tppMessage codes outside the interface's list are
// reported as "OTHER". What this package exports is made of those
// fields only. The module's tests plant personal values in every call
// of a run against the emulator and find none in any span, attribute or
// metric.
//
// # Cost
//
// Without an observer the client does no work for it. With this one, the
// module's own work is about 10 to 15 µs of CPU per operation of one
// attempt in a tight loop (two spans and three measurements, the batch
// span processor and the garbage collector included), what repeats per
// route, bank and outcome being built once in bounded caches, and 14
// allocations of the module and the SDK; an operation looks its route up
// once, and the span of its last attempt reaches the span processor
// together with its own (a batch span processor is woken once per
// operation, not twice). Between two signed requests, with its code and
// data out of the caches, a request pays several times that. The client
// makes one allocation per call for an observer. Measurements carry no
// exemplar unless [WithExemplars]. On the OpenTelemetry SDK's meter an
// operation's measurements are recorded in batches (see [New]): before
// each collection, so a reader misses none, and otherwise when 64 are
// kept or a second after the first. [NewSpanBatcher] is a batch span
// processor that, unlike the SDK's, wakes no goroutine at each span's
// end. BenchmarkPerRequestCost compares a read against the emulator
// without an observer and with one, for each of three setups (the SDK's
// span processor, NewSpanBatcher, measurements recorded at once), by
// wall and by CPU time, and reports the load average the ratios depend
// on. The README gives the figures.
package otel
