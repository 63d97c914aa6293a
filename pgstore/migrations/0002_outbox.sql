-- The outbox of lifecycle events (package events). Publish inserts a row
-- once per event id; consumers take pending rows in seq order with
-- SELECT ... FOR UPDATE SKIP LOCKED and mark them delivered in the same
-- transaction as their own effects. Delivered rows are kept (so that the
-- same event published again is still dropped) until Outbox.Prune.
CREATE TABLE {{schema}}.outbox (
	seq          bigserial PRIMARY KEY,
	id           text COLLATE "C" NOT NULL UNIQUE,
	kind         text NOT NULL,
	at           timestamptz NOT NULL,
	data         bytea NOT NULL,
	delivered_at timestamptz
);

CREATE INDEX outbox_pending ON {{schema}}.outbox (seq) WHERE delivered_at IS NULL;
