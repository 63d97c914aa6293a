package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
)

// testPostgres returns the connection string of the test server
// (PSD2_TEST_POSTGRES, as in the pgstore module); without it the test is
// skipped, except under CI=true, where it fails.
func testPostgres(t *testing.T) string {
	t.Helper()
	conn := optionalPostgres(t)
	if conn == "" {
		t.Skip("no PostgreSQL server: set PSD2_TEST_POSTGRES to a pgx connection string to run this test")
	}
	return conn
}

// optionalPostgres is testPostgres for a test that also has cases
// without a server: "" when there is none outside CI; under CI a
// missing server fails the test.
func optionalPostgres(t *testing.T) string {
	t.Helper()
	conn := os.Getenv("PSD2_TEST_POSTGRES")
	if conn == "" && os.Getenv("CI") == "true" {
		t.Fatal("PSD2_TEST_POSTGRES is not set, and CI=true: the PostgreSQL tests must run in CI")
	}
	return conn
}

// outboxSchema returns a migrated pgstore in a schema of its own,
// dropped at the end of the test.
func outboxSchema(t *testing.T, conn string, opts ...pgstore.Option) (*pgstore.Store, string) {
	t.Helper()
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	schema := "psd2_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, conn)
		if err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	st, err := pgstore.Open(t.Context(), conn, append([]pgstore.Option{pgstore.WithSchema(schema)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(t.Context()))
	return st, schema
}

// TestOutboxCommand makes two dead letters (one holding a later event of
// its payment), lists them with psd2 outbox list, retries one by ID and
// the rest with -all, and discards one: each step as the outbox then
// says.
func TestOutboxCommand(t *testing.T) {
	conn := testPostgres(t)
	st, schema := outboxSchema(t, conn, pgstore.WithOutboxMaxAttempts(1))
	ctx := t.Context()
	ob := st.Outbox()
	status := func(ref string, i int) events.Envelope {
		env, err := events.Wrap(events.PaymentStatusChanged{Payment: ref, From: fmt.Sprint("S", i), To: fmt.Sprint("S", i+1)}, time.Now())
		require.NoError(t, err)
		return env
	}
	a1, a2, b1, c1 := status("pay-a", 0), status("pay-a", 1), status("pay-b", 0), status("pay-c", 0)
	for _, e := range []events.Envelope{a1, a2, b1, c1} {
		require.NoError(t, ob.Publish(ctx, e))
	}
	refuse := map[string]bool{a1.ID: true, b1.ID: true}
	consume := func() {
		t.Helper()
		for range 10 {
			n, err := ob.Consume(ctx, 10, func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
				if refuse[e.ID] {
					return errors.New("refused")
				}
				return nil
			})
			if n == 0 && err == nil {
				return
			}
		}
	}
	consume()

	args := []string{"-store", conn, "-schema", schema}
	out, stderr, code := psd2(t, append([]string{"outbox", "list", "--json"}, args...)...)
	require.Zero(t, code, stderr)
	var rep outboxReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.EqualValues(t, 2, rep.Stats.Dead)
	assert.EqualValues(t, 1, rep.Stats.Pending, "a2, held")
	require.Len(t, rep.DeadLetters, 2)
	assert.Equal(t, a1.ID, rep.DeadLetters[0].ID)
	assert.EqualValues(t, 1, rep.DeadLetters[0].Holds)
	assert.Equal(t, b1.ID, rep.DeadLetters[1].ID)
	assert.Equal(t, 1, rep.DeadLetters[1].Attempts)
	assert.NotContains(t, out, "pay-a", "no event data")

	out, stderr, code = psd2(t, append([]string{"outbox", "list", "-limit", "1"}, args...)...)
	require.Zero(t, code, stderr)
	assert.Contains(t, out, a1.ID)
	assert.NotContains(t, out, b1.ID)
	assert.Contains(t, out, "2 dead letter(s) (1 shown: raise -limit), the shown ones holding 1 later event(s) of their subjects; 1 pending")
	assert.Contains(t, out, "psd2 outbox retry")
	assert.NotContains(t, out+stderr, conn, "the connection string is never printed")

	// Retry a1 by ID: it and the event it held are delivered.
	delete(refuse, a1.ID)
	out, stderr, code = psd2(t, append(append([]string{"outbox", "retry"}, args...), a1.ID)...)
	require.Zero(t, code, stderr)
	assert.Contains(t, out, "1 dead letter(s) pending again")
	consume()
	stats, err := ob.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, pgstore.OutboxStats{Dead: 1, Delivered: 3}, stats)

	// Not a dead letter (any more): a clear error, exit 3.
	_, stderr, code = psd2(t, append(append([]string{"outbox", "retry"}, args...), a1.ID)...)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, stderr, "no dead letter with ID "+a1.ID)

	// b1 refused again: retry -all makes it pending, it fails its one
	// attempt again, and is discarded.
	out, stderr, code = psd2(t, append([]string{"outbox", "retry", "-all", "--json"}, args...)...)
	require.Zero(t, code, stderr)
	var res outboxResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.EqualValues(t, 1, res.Count)
	consume()
	out, stderr, code = psd2(t, append(append([]string{"outbox", "discard"}, args...), b1.ID)...)
	require.Zero(t, code, stderr)
	assert.Contains(t, out, "discarded "+b1.ID)
	stats, err = ob.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, pgstore.OutboxStats{Delivered: 4}, stats)
	out, stderr, code = psd2(t, append([]string{"outbox", "list"}, args...)...)
	require.Zero(t, code, stderr)
	assert.Contains(t, out, "0 dead letter(s); 0 pending")
}

// TestOutboxCommandRefuses checks that psd2 outbox never reports "no dead
// letters" for a store it could not read.
func TestOutboxCommandRefuses(t *testing.T) {
	conn := testPostgres(t)
	_, schema := outboxSchema(t, conn)
	cases := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"outbox"}, exitUsage, "want a subcommand"},
		{[]string{"outbox", "list"}, exitUsage, "give -store"},
		{[]string{"outbox", "list", "-store", t.TempDir()}, exitUsage, "not a PostgreSQL connection string"},
		{[]string{"outbox", "list", "-store", conn, "-schema", "psd2_test_none"}, exitRuntime, `no pgstore in schema "psd2_test_none"`},
		{[]string{"outbox", "list", "-store", conn, "-schema", "Not-A-Schema"}, exitRuntime, "not a lower-case identifier"},
		{[]string{"outbox", "list", "-store", conn, "-schema", schema, "-limit", "0"}, exitUsage, "-limit 0"},
		{[]string{"outbox", "retry", "-store", conn, "-schema", schema}, exitUsage, "retry takes the IDs"},
		{[]string{"outbox", "retry", "-store", conn, "-schema", schema, "-all", "x"}, exitUsage, "not both"},
		{[]string{"outbox", "discard", "-store", conn, "-schema", schema}, exitUsage, "discard takes one ID"},
		{[]string{"outbox", "discard", "-store", conn, "-schema", schema, "f00d"}, exitRuntime, "no dead letter with ID f00d"},
	}
	for _, c := range cases {
		out, stderr, code := psd2(t, c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.says, "%v", c.args)
		assert.Empty(t, out, "%v: nothing on stdout", c.args)
		assert.NotContains(t, stderr, conn, "%v: the connection string is never printed", c.args)
	}
	// -store from the environment.
	cmd := []string{"outbox", "list", "-schema", schema}
	out, stderr, code := psd2In(t, t.TempDir(), []string{envStore + "=" + conn}, cmd...)
	require.Zero(t, code, stderr)
	assert.Contains(t, out, "0 dead letter(s)")
}

// TestOutboxListOfNoEventSaysSo: an outbox that holds no event at all
// (none pending, dead or delivered) is what a schema the service never
// published to looks like: outbox list says so on stderr next to "0 dead
// letter(s)", never a bare all-clear; once it holds an event, no note.
func TestOutboxListOfNoEventSaysSo(t *testing.T) {
	conn := testPostgres(t)
	st, schema := outboxSchema(t, conn)
	args := []string{"outbox", "list", "-store", conn, "-schema", schema}
	for _, json := range []bool{false, true} {
		a := args
		if json {
			a = append(a, "--json")
		}
		out, stderr, code := psd2(t, a...)
		require.Zero(t, code, stderr)
		if !json {
			assert.Contains(t, out, "0 dead letter(s)")
		}
		assert.Contains(t, stderr, "holds no event at all")
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line")
	}
	env, err := events.Wrap(events.PaymentStatusChanged{Payment: "pay-x", From: "RCVD", To: "ACTC"}, time.Now())
	require.NoError(t, err)
	require.NoError(t, st.Outbox().Publish(t.Context(), env))
	out, stderr, code := psd2(t, args...)
	require.Zero(t, code, stderr)
	assert.Contains(t, out, "0 dead letter(s); 1 pending")
	assert.Empty(t, stderr)
}

// TestOutboxCommandRefusesAnUnknownSchema: a schema a newer release
// migrated (a version this psd2 does not know), or whose
// schema_migrations is another application's, is refused with exit
// status 3 and words that say so, for every subcommand: its outbox may
// not be what this psd2 reads and writes, and a listing of it could be
// an all-clear it cannot give.
func TestOutboxCommandRefusesAnUnknownSchema(t *testing.T) {
	conn := testPostgres(t)
	newer, newerSchema := outboxSchema(t, conn)
	ctx := t.Context()
	c, err := pgx.Connect(ctx, conn)
	require.NoError(t, err)
	defer c.Close(context.Background())
	_, err = c.Exec(ctx, `INSERT INTO `+pgx.Identifier{newerSchema, "schema_migrations"}.Sanitize()+
		` (version, name) VALUES ($1, 'future')`, pgstore.SchemaVersion+1)
	require.NoError(t, err)
	_ = newer

	// Another application's schema_migrations (golang-migrate's shape).
	_, other := outboxSchema(t, conn)
	_, err = c.Exec(ctx, `DROP TABLE `+pgx.Identifier{other, "schema_migrations"}.Sanitize()+`;
		CREATE TABLE `+pgx.Identifier{other, "schema_migrations"}.Sanitize()+` (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL);
		INSERT INTO `+pgx.Identifier{other, "schema_migrations"}.Sanitize()+` VALUES (20240101120000, false)`)
	require.NoError(t, err)

	for _, schema := range []string{newerSchema, other} {
		for _, sub := range [][]string{{"list"}, {"retry", "-all"}, {"retry", "f00d"}, {"discard", "f00d"}} {
			args := append(append([]string{"outbox"}, sub...), "-store", conn, "-schema", schema)
			out, stderr, code := psd2(t, args...)
			assert.Equal(t, exitRuntime, code, "%v: %s", sub, stderr)
			assert.Empty(t, out, "%v", sub)
			assert.Contains(t, stderr, fmt.Sprintf("schema %q", schema), "%v", sub)
			assert.Contains(t, stderr, "this psd2 knows", "%v", sub)
			assert.NotContains(t, stderr, conn)
		}
	}
}
