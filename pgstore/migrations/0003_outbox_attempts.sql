-- Attempts, dead letters and per-subject order for the outbox
-- (Outbox.Consume, Outbox.DeadLetters, Outbox.Retry, Outbox.Discard).
--
-- key is the event's Envelope.Key, a hash of its subject (a consent
-- reference, a payment, a certificate role): an event is taken only when
-- every earlier event of its key is delivered, so a key's events arrive in
-- the order they were published, and a dead letter holds the later events
-- of its key until it is retried or discarded. Rows published before this
-- migration have no key and no such order, as before.
--
-- attempts counts the handler's failures; next_attempt_at is when a failed
-- event may be taken again; failed_at is its last failure; dead_at is set
-- when the last allowed attempt failed. The handler's error is not kept:
-- it may hold anything, personal data included.
--
-- Every new column is NULL or has a constant default, so existing rows are
-- read as they are: pending ones with no attempt yet.
ALTER TABLE {{schema}}.outbox
	ADD COLUMN key             text COLLATE "C",
	ADD COLUMN attempts        integer NOT NULL DEFAULT 0,
	ADD COLUMN next_attempt_at timestamptz,
	ADD COLUMN failed_at       timestamptz,
	ADD COLUMN dead_at         timestamptz;

CREATE INDEX outbox_key_pending ON {{schema}}.outbox (key, seq)
	WHERE delivered_at IS NULL AND key IS NOT NULL;

CREATE INDEX outbox_dead ON {{schema}}.outbox (seq)
	WHERE dead_at IS NOT NULL AND delivered_at IS NULL;
