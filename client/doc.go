// Package client is the root of the SDK: a [Client] holds the TPP's eIDAS
// credentials and the bank's base URL and carries every request of the
// typed services (payments, accounts, basket, sca, sandbox) through one
// pipeline.
//
// # The pipeline
//
// Per call, [RequestOption]s set the PSU and session headers;
// the JSON body is encoded once and X-Request-ID fixed once; each attempt
// gets a fresh Date, the Digest, x-accept-fix, and the Signature and
// TPP-Signature-Certificate headers (docs/interface.md section 5).
//
// # Retries
//
// GET and DELETE are retried on transport errors, 429, 502, 503 and
// 504 with capped, jittered backoff. A POST is sent again only when it
// certainly never left the machine; otherwise the caller gets an
// [OutcomeUnknownError] (errors.Is(err, [ErrOutcomeUnknown])) and reconciles.
//
// # Errors
//
// Every non-2xx answer is an [*Error] with the status, the request
// id, the tppMessages and the _links; sentinels such as [ErrSCARequired] and
// [ErrConsentUnknown] match with errors.Is.
//
// # Observing
//
// [WithObserver] reports every operation and attempt to an
// [Observer] as typed events holding no personal data (outcome class,
// status, tppMessage codes, attempt, durations, budget calls left); the
// module github.com/tppkit/psd2/otel turns them into OpenTelemetry traces
// and metrics.
//
// # When a bank is down
//
// A circuit breaker per bank ([BreakerPolicy], shared through [Health]
// and the client's store) opens after 5 requests in a row not answered
// within 30 s or answered 5xx, or on an error rate; calls then fail fast
// with [ErrBankUnavailable] (also [ErrNotSent]) until a probe is
// answered. [Client.BankHealth] shows the bank's rolling health, and
// [Client.Downtimes] and [Report] the unavailabilities recorded, with
// their evidence. See docs/design.md section 2.
//
// # Links
//
// Relative hrefs of the bank's _links are resolved under the base
// URL's path, and a signed request never goes to another host.
package client
