package pgstore

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tppkit/psd2/store"
)

// DefaultSchema is the PostgreSQL schema the store's tables live in
// unless [WithSchema] names another.
const DefaultSchema = "psd2"

// Cleanup sizes: a cleanup deletes at most cleanupBatch expired rows per
// statement; a Store starts one in the background every cleanupEvery
// writes (see [Store.Cleanup]).
const (
	cleanupBatch = 1000
	cleanupEvery = 512
	// keysPage is the number of keys Keys reads per query.
	keysPage = 1000
)

// Store is a [store.Store] on PostgreSQL: one row per key in the table
// kv of its schema, shared by every replica connected to the database.
//
//   - Every statement runs in a transaction begun with BEGIN ISOLATION
//     LEVEL READ COMMITTED, whatever the database's or role's
//     default_transaction_isolation: racing replicas wait for each other
//     instead of failing. A transaction that fails with a serialization
//     failure or a deadlock runs again, at most 10 times in all, after a
//     short random pause; then the method returns a [ContentionError].
//     A transaction whose first statements never reached the server (an
//     idle connection that died in a restart or a failover of the
//     database) runs again at once on another connection.
//   - Get, Put, Delete and Keys are single statements; a row whose
//     expires_at has passed is invisible to all of them.
//   - Take is one DELETE ... RETURNING: of several replicas taking one
//     key, exactly one gets the row, the others wait for it and find no
//     row ([store.ErrNotStored]).
//   - Update runs in a transaction that first locks the key's row (an
//     INSERT ... ON CONFLICT DO UPDATE that creates a placeholder when the
//     key is missing, so that a missing key is locked too), then calls fn
//     and writes its result: two replicas can never both take the last
//     budget call. fn runs once per attempt: once, unless the transaction
//     is retried.
//   - Expired rows are deleted by [Store.Cleanup], in batches of 1000,
//     which the Store also starts in the background every 512 writes.
//   - A row no Put or Update could write (another application's, a
//     hand-made or a damaged one) costs no more than one the Store wrote:
//     Get, Take and Update refuse a value above [store.MaxValueLen] with
//     an error matching [store.ErrValueTooLarge] without reading it
//     (Take deletes it all the same; Update leaves it and does not call
//     fn), and Keys ends with an error matching [store.ErrInvalidKey]
//     at a key above [store.MaxKeyLen] under its prefix, without
//     reading the key: it cannot be given, and a listing without it
//     would read as whole.
//
// Run [Store.Migrate] once at start-up (every replica may). A Store is
// safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool
	schema  string
	q       queries
	outbox  outboxConfig
	// clock is WithClock's clock; nil: the database's now().
	clock func() time.Time

	writes   atomic.Int64
	cleaning atomic.Bool
	// mu orders Close against the start of a background cleanup: a
	// cleanup is started (wg.Add) only under mu while closed is false,
	// so that none starts once Close has set it and none outlives Close.
	mu     sync.Mutex
	wg     sync.WaitGroup
	closed bool
}

// Option configures a [Store] in [New] and [Open].
type Option func(*config) error

type config struct {
	schema string
	outbox outboxConfig
	clock  func() time.Time
}

// schemaName is what [WithSchema] accepts: a plain lower-case identifier.
var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// WithSchema keeps the store's tables in schema (created by
// [Store.Migrate]) instead of [DefaultSchema], for example one schema per
// environment or per test. It must be a lower-case identifier of at most
// 63 characters: letters, digits and underscores.
func WithSchema(schema string) Option {
	return func(c *config) error {
		if !schemaName.MatchString(schema) {
			return fmt.Errorf("pgstore: schema %q is not a lower-case identifier of 1 to 63 characters", schema)
		}
		c.schema = schema
		return nil
	}
}

// WithClock makes the store judge expiry by now instead of the
// database's clock: a value written with a ttl expires at now()+ttl, and
// Get, Take, Update, Keys and [Store.Cleanup] take a value as expired
// once now() has passed its end. It is for tests and simulations that
// move time on (a frozen or advanced clock, a soak of many simulated
// days), with the clock the code under test reads (client.WithClock). In
// production leave it unset: the database's clock then judges every
// replica's values, one clock for all of them. A store with a clock still
// keeps a value for at least its ttl on that clock, so a budget's count
// (whose ttl is measured on the same clock) never expires before its
// window ends. The outbox's times stay on the database's clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return errors.New("pgstore: WithClock needs a clock")
		}
		c.clock = now
		return nil
	}
}

// New returns a Store using pool, which stays the caller's: [Store.Close]
// does not close it.
func New(pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgstore: New needs a pool")
	}
	c, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	return &Store{pool: pool, schema: c.schema, q: newQueries(c.schema, c.clock != nil), outbox: c.outbox, clock: c.clock}, nil
}

func applyOptions(opts []Option) (config, error) {
	c := config{schema: DefaultSchema, outbox: defaultOutboxConfig()}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&c); err != nil {
			return config{}, err
		}
	}
	return c, nil
}

// DefaultConnectTimeout bounds each connection attempt of a pool [Open]
// makes (the connection and the server's answer to its startup), unless
// the connection string sets connect_timeout: pgx's own default is no
// bound, so that a host that drops packets, or a port that accepts and
// never answers (a wrong -store), would hold Open, and every later
// connection of the pool, for as long as the caller's context.
const DefaultConnectTimeout = 10 * time.Second

// connectTimeout is DefaultConnectTimeout (a test's may be shorter).
var connectTimeout = DefaultConnectTimeout

// Open connects to the database of connString (a pgx connection string
// or URL, for example "postgres://tpp@db.internal/tpp" or "host=/run/pg
// dbname=tpp") with a pool of its own, checks that the server answers,
// and returns a Store that closes the pool in [Store.Close]. Each
// connection attempt waits at most [DefaultConnectTimeout] unless the
// string sets connect_timeout.
func Open(ctx context.Context, connString string, opts ...Option) (*Store, error) {
	if _, err := applyOptions(opts); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		// The connection string may hold a password: never quote it.
		return nil, errors.New("pgstore: the connection string is not valid")
	}
	if !strings.Contains(connString, "connect_timeout") {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connecting: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: connecting: %w", err)
	}
	s, err := New(pool, opts...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.ownPool = true
	return s, nil
}

// Close waits for a background cleanup to end (each is bounded to 30
// seconds) and closes the pool when [Open] made it. No cleanup starts
// once Close has begun, not even for a write that races it.
func (s *Store) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
	if s.ownPool {
		s.pool.Close()
	}
}

// Schema returns the schema of the store's tables.
func (s *Store) Schema() string { return s.schema }

// queries are the statements of one schema.
type queries struct {
	get, put, del, take, lock, set, keys, keysTo, cleanup string
}

func newQueries(schema string, clocked bool) queries {
	t := pgx.Identifier{schema, "kv"}.Sanitize()
	// now is the statement's current time: the database's now(), or,
	// with WithClock, parameter $n, the store's clock.
	now := func(n int) string {
		if clocked {
			return fmt.Sprintf("$%d::timestamptz", n)
		}
		return "now()"
	}
	live := func(n int) string { return `(expires_at IS NULL OR expires_at > ` + now(n) + `)` }
	// $3 is the ttl in microseconds; 0 keeps the value until deleted.
	expires := func(n int) string {
		return `CASE WHEN $3::bigint > 0 THEN ` + now(n) + ` + make_interval(secs => $3::bigint / 1e6) END`
	}
	// bounded reads a value only within store.MaxValueLen, and its
	// length: a longer value (written by other means) never crosses the
	// wire (checkRead). keyBound reads in Keys a key only within
	// store.MaxKeyLen, which no other method takes, and its length: a
	// longer one ends Keys with an error (overlongKey).
	bounded := fmt.Sprintf(`CASE WHEN octet_length(value) <= %d THEN value END, octet_length(value)`, store.MaxValueLen)
	keyBound := fmt.Sprintf(`CASE WHEN octet_length(key) <= %d THEN key END, octet_length(key)`, store.MaxKeyLen)
	return queries{
		get: `SELECT ` + bounded + ` FROM ` + t + ` WHERE key = $1 AND ` + live(2),
		put: `INSERT INTO ` + t + ` (key, value, expires_at) VALUES ($1, $2, ` + expires(4) + `)
			ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
		del:  `DELETE FROM ` + t + ` WHERE key = $1`,
		take: `DELETE FROM ` + t + ` WHERE key = $1 RETURNING ` + bounded + `, ` + live(2),
		// Lock the key's row, creating an expired placeholder (invisible
		// to every other statement) when there is none, so that two
		// Updates of a missing key wait for each other too.
		lock: `INSERT INTO ` + t + ` AS kv (key, value, expires_at) VALUES ($1, '', '-infinity')
			ON CONFLICT (key) DO UPDATE SET key = kv.key
			RETURNING ` + bounded + `, ` + live(2),
		set:    `UPDATE ` + t + ` SET value = $2, expires_at = ` + expires(4) + ` WHERE key = $1`,
		keys:   `SELECT ` + keyBound + ` FROM ` + t + ` WHERE key >= $1 AND starts_with(key, $2) AND ` + live(3) + ` ORDER BY key LIMIT ` + fmt.Sprint(keysPage),
		keysTo: `SELECT ` + keyBound + ` FROM ` + t + ` WHERE key >= $1 AND key < $3 AND starts_with(key, $2) AND ` + live(4) + ` ORDER BY key LIMIT ` + fmt.Sprint(keysPage),
		cleanup: `DELETE FROM ` + t + ` WHERE key IN (SELECT key FROM ` + t + `
			WHERE expires_at <= ` + now(1) + ` ORDER BY expires_at LIMIT ` + fmt.Sprint(cleanupBatch) + ` FOR UPDATE SKIP LOCKED)`,
	}
}

// at returns args followed by the store's clock's time when it has one
// (WithClock): the parameter the statements of a clocked store end with.
// The database holds microseconds: a statement that judges expiry gets
// the time cut down to the microsecond, and one that writes an expiry
// (put, set: expiring) the time rounded up to it, so that a value is kept
// for at least its ttl on the clock (cut down both, an expiry and a later
// clock 1ns to 1µs short of it fell on the same microsecond).
func (s *Store) at(args ...any) []any {
	if s.clock != nil {
		args = append(args, s.clock().Truncate(time.Microsecond))
	}
	return args
}

// expiring is at for a statement that writes an expiry.
func (s *Store) expiring(args ...any) []any {
	if s.clock != nil {
		now := s.clock()
		if down := now.Truncate(time.Microsecond); down.Before(now) {
			now = down.Add(time.Microsecond)
		}
		args = append(args, now)
	}
	return args
}

// begin checks the context and the key, as every method does first.
func begin(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return store.CheckKey(key)
}

// wrap names the operation in an error of the database. When ctx ended,
// the error matches ctx's error (context.Canceled or
// context.DeadlineExceeded) whatever the driver made of it.
func wrap(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("pgstore: %s: %w (%w)", op, cerr, err)
	}
	return fmt.Errorf("pgstore: %s: %w", op, err)
}

// micros is a ttl in whole microseconds, rounded up; 0 for none.
func micros(ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	return int64((ttl + time.Microsecond - 1) / time.Microsecond)
}

// Get implements [store.Store].
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := begin(ctx, key); err != nil {
		return nil, err
	}
	var (
		v     []byte
		n     int64
		found bool
	)
	err := s.exec(ctx, func(b *pgx.Batch) {
		b.Queue(s.q.get, s.at(key)...).QueryRow(scanRow(&found, &v, &n))
	})
	if err != nil {
		return nil, wrap(ctx, "get", err)
	}
	if !found {
		return nil, store.ErrNotStored
	}
	if err := checkRead("get", n); err != nil {
		return nil, err
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// checkRead refuses a stored value of n bytes above store.MaxValueLen,
// which the statements did not read (queries.bounded): no Put or Update
// writes one, but another application, a hand-made row or a damaged
// table may hold up to PostgreSQL's 1 GB. The error matches
// store.ErrValueTooLarge.
func checkRead(op string, n int64) error {
	if n <= store.MaxValueLen {
		return nil
	}
	return fmt.Errorf("pgstore: %s: the stored value has %d bytes, at most %d are read: %w", op, n, store.MaxValueLen, store.ErrValueTooLarge)
}

// Put implements [store.Store].
func (s *Store) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	if err := store.CheckValue(value); err != nil {
		return err
	}
	if value == nil {
		value = []byte{}
	}
	if err := s.exec(ctx, func(b *pgx.Batch) { b.Queue(s.q.put, s.expiring(key, value, micros(ttl))...) }); err != nil {
		return wrap(ctx, "put", err)
	}
	s.wrote()
	return nil
}

// Delete implements [store.Store].
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	if err := s.exec(ctx, func(b *pgx.Batch) { b.Queue(s.q.del, key) }); err != nil {
		return wrap(ctx, "delete", err)
	}
	return nil
}

// Take implements [store.Store] with one DELETE ... RETURNING: an expired
// row is deleted too, and reported as missing. Of concurrent Takes of a
// key, the losers wait for the winner's transaction and then find no row:
// they get [store.ErrNotStored].
func (s *Store) Take(ctx context.Context, key string) ([]byte, error) {
	if err := begin(ctx, key); err != nil {
		return nil, err
	}
	var (
		v           []byte
		n           int64
		found, live bool
	)
	err := s.exec(ctx, func(b *pgx.Batch) {
		b.Queue(s.q.take, s.at(key)...).QueryRow(scanRow(&found, &v, &n, &live))
	})
	if err != nil {
		return nil, wrap(ctx, "take", err)
	}
	if !found || !live {
		return nil, store.ErrNotStored
	}
	if err := checkRead("take", n); err != nil {
		return nil, err // taken: the value is gone, as a Take's is
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// errFn ends an Update's attempt whose fn failed (or returned a value
// too large): the transaction rolls back and is not retried.
var errFn = errors.New("pgstore: fn failed")

// Update implements [store.Store] in one transaction: lock (or create and
// lock) the key's row, run fn, write or delete. fn runs while the row is
// locked: it must be quick and must not use the store. It runs once per
// attempt: again only when the transaction failed with a serialization
// failure or a deadlock and is retried (see [Store]). The transaction
// takes two round trips to the server: BEGIN and the lock are sent
// together, then the write and COMMIT.
func (s *Store) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	var fnErr error
	err := s.inTx(ctx, func(t *tx) error {
		var (
			old  []byte
			n    int64
			live bool
		)
		err := t.send(ctx, false, func(b *pgx.Batch) {
			b.Queue(s.q.lock, s.at(key)...).QueryRow(func(row pgx.Row) error { return row.Scan(&old, &n, &live) })
		})
		if err != nil {
			return err
		}
		if live {
			if err := checkRead("update", n); err != nil {
				fnErr = err // rolled back: the row stays as it was
				return errFn
			}
		}
		if !live {
			old = nil
		} else if old == nil {
			old = []byte{}
		}
		value, ttl, err := fn(old, live)
		if err == nil && value != nil {
			err = store.CheckValue(value)
		}
		if err != nil {
			// Rolled back by inTx: the row stays as it was, a
			// placeholder disappears.
			fnErr = err
			return errFn
		}
		return t.send(ctx, true, func(b *pgx.Batch) {
			if value == nil {
				b.Queue(s.q.del, key)
			} else {
				b.Queue(s.q.set, s.expiring(key, value, micros(ttl))...)
			}
		})
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return wrap(ctx, "update", err)
	}
	s.wrote()
	return nil
}

// Keys implements [store.Store]. It reads the keys in pages of 1000 and
// holds no connection while the loop body runs, so the body may use the
// store.
func (s *Store) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := ctx.Err(); err != nil {
			yield("", err)
			return
		}
		head, from, upper, bounded, ok := keyRange(prefix)
		if !ok {
			return // no key has it
		}
		for {
			var page []keyRow
			err := s.exec(ctx, func(b *pgx.Batch) {
				var q *pgx.QueuedQuery
				if bounded {
					q = b.Queue(s.q.keysTo, s.at(from, head, upper)...)
				} else {
					q = b.Queue(s.q.keys, s.at(from, head)...)
				}
				q.Query(func(rows pgx.Rows) (err error) {
					page, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (k keyRow, err error) {
						err = r.Scan(&k.key, &k.n)
						return k, err
					})
					return err
				})
			})
			if err != nil {
				yield("", wrap(ctx, "keys", err))
				return
			}
			for _, k := range page {
				if k.key == nil {
					yield("", overlongKey(prefix, k.n))
					return
				}
				if !yield(*k.key, nil) {
					return
				}
			}
			if len(page) < keysPage {
				return
			}
			// The next key above the last: no key lies between it and
			// the last one followed by "\x01" (it would go on with a NUL,
			// which no key holds).
			from = *page[len(page)-1].key + "\x01"
		}
	}
}

// keyRow is a row of Keys: the key, nil when it is above
// store.MaxKeyLen (not read), and its length.
type keyRow struct {
	key *string
	n   int64
}

// overlongKey is the error of Keys at a key of n bytes under prefix,
// above store.MaxKeyLen: a row no method of a Store could write
// (another application's, or a hand-made one), which Keys cannot give,
// and a listing without it would read as whole.
func overlongKey(prefix string, n int64) error {
	return fmt.Errorf("pgstore: keys: %w: a key under the prefix %q has %d bytes, more than the %d a key may have (written by other means): it is not read",
		store.ErrInvalidKey, prefix, n, store.MaxKeyLen)
}

// keyRange returns what Keys asks the database for the keys that start
// with prefix, a byte string like the keys (store.Store): the keys from
// from on that start with head, and are below upper when bounded. It
// reports false when no key can start with prefix: one holding a NUL
// (which no key holds, and PostgreSQL's text cannot), or not UTF-8 other
// than by its last character being cut short. A prefix so cut short
// ("p/\xc3", the first byte of "p/é") is the prefix of the keys that go
// on from head, its valid part, with a character whose encoding starts
// with those bytes: in byte order, which is code point order, the keys
// from head and the first such character to the end of head and the
// last one.
func keyRange(prefix string) (head, from, upper string, bounded, ok bool) {
	if strings.IndexByte(prefix, 0) >= 0 {
		return "", "", "", false, false
	}
	head = prefix
	for i := 0; i < len(prefix); {
		r, size := utf8.DecodeRuneInString(prefix[i:])
		if r == utf8.RuneError && size == 1 {
			head = prefix[:i]
			break
		}
		i += size
	}
	if head == prefix {
		upper, bounded = prefixEnd(prefix)
		return prefix, prefix, upper, bounded, true
	}
	tail := prefix[len(head):]
	if utf8.FullRuneInString(tail) {
		return "", "", "", false, false // not cut short: not UTF-8
	}
	lo, hi := completion(tail, true), completion(tail, false)
	upper, bounded = prefixEnd(head + string(hi))
	return head, head + string(lo), upper, bounded, true
}

// completion returns the smallest (or, when !smallest, the largest)
// character whose UTF-8 encoding starts with tail, the first bytes of
// one.
func completion(tail string, smallest bool) rune {
	s := tail
	for !utf8.FullRuneInString(s) {
		next := s
		for i := range 0x40 { // the continuation bytes 0x80 to 0xBF
			c := byte(0x80 + i)
			if !smallest {
				c = byte(0xBF - i)
			}
			next = s + string([]byte{c})
			if r, size := utf8.DecodeRuneInString(next); !utf8.FullRuneInString(next) || r != utf8.RuneError || size > 1 {
				break
			}
		}
		s = next
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// prefixEnd returns the smallest string above every string starting with
// prefix in byte order (the key column's "C" collation): prefix with its
// last rune that can grow replaced by the next code point. In UTF-8,
// byte order is code point order, so key >= prefix AND key < end selects
// the keys with the prefix by an index range. It reports false when
// there is no such string (an empty prefix).
func prefixEnd(prefix string) (string, bool) {
	for p := prefix; p != ""; {
		r, size := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-size]
		next := r + 1
		if next >= 0xD800 && next <= 0xDFFF { // skip the surrogates
			next = 0xE000
		}
		if next <= utf8.MaxRune {
			return p + string(next), true
		}
	}
	return "", false
}

// wrote counts a write and, every cleanupEvery writes, starts a cleanup
// in the background unless one is running.
func (s *Store) wrote() {
	if s.writes.Add(1)%cleanupEvery != 0 || !s.cleaning.CompareAndSwap(false, true) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.cleaning.Store(false)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.cleaning.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = s.cleanupOnce(ctx)
	}()
}

// Cleanup deletes the rows whose values have expired (pending SCAs whose
// PSU never came back, budget windows that ended), in batches of 1000
// until none is left, and returns how many it deleted. A Store also
// starts one batch in the background every 512 writes; call Cleanup on a
// timer (hourly, say) when writes are rare (riverrefresh's scheduler does,
// Config.CleanupEvery). Replicas may run it at the
// same time: each batch skips the rows another one is deleting.
func (s *Store) Cleanup(ctx context.Context) (int64, error) {
	var total int64
	for {
		n, err := s.cleanupOnce(ctx)
		total += n
		if err != nil || n < cleanupBatch {
			return total, err
		}
	}
}

func (s *Store) cleanupOnce(ctx context.Context) (int64, error) {
	var n int64
	err := s.exec(ctx, func(b *pgx.Batch) {
		b.Queue(s.q.cleanup, s.at()...).Exec(func(tag pgconn.CommandTag) error {
			n = tag.RowsAffected()
			return nil
		})
	})
	if err != nil {
		return 0, wrap(ctx, "cleanup", err)
	}
	return n, nil
}
