// Package otel reports what the SDK does as OpenTelemetry traces and metrics.
package otel
