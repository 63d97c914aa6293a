-- The key-value table behind store.Store. Keys are compared byte by byte
-- (COLLATE "C"), so that Keys yields them in ascending byte order on any
-- database locale. A row whose expires_at has passed is invisible to every
-- method and removed by Store.Cleanup.
CREATE TABLE {{schema}}.kv (
	key        text COLLATE "C" PRIMARY KEY,
	value      bytea NOT NULL,
	expires_at timestamptz
);

CREATE INDEX kv_expires_at ON {{schema}}.kv (expires_at) WHERE expires_at IS NOT NULL;
