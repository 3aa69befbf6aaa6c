-- One schema for SQLite and PostgreSQL: only types both accept (TEXT,
-- BIGINT, DOUBLE PRECISION, BYTEA: SQLite stores a BYTEA column's blobs as
-- given). Times are milliseconds since the Unix epoch, set by the service.

-- Uploaded replay bytes, content-addressed: the key is the blake3 hash of
-- the decompressed replay, so a plain and a gzip upload of one replay are
-- stored once.
CREATE TABLE replays (
    hash TEXT PRIMARY KEY,
    bytes BYTEA NOT NULL,
    size BIGINT NOT NULL
);

-- A run is one submitted replay; its id is the replay's hash.
-- status: pending, verified or rejected. outcome: the verification result
-- as JSON. The ranking columns are copied out of it for the leaderboard
-- query; best_lap is NULL when the run has no valid lap.
CREATE TABLE runs (
    id TEXT PRIMARY KEY REFERENCES replays (hash),
    status TEXT NOT NULL,
    submitted_ms BIGINT NOT NULL,
    finished_ms BIGINT,
    track TEXT,
    class TEXT,
    player TEXT,
    best_lap DOUBLE PRECISION,
    outcome TEXT
);

CREATE INDEX runs_ranking ON runs (track, class, status, player, best_lap);

-- The verification queue. state: queued, running or done. A running job
-- whose lease has passed is claimed again (its worker died); attempts
-- counts claims.
CREATE TABLE jobs (
    run_id TEXT PRIMARY KEY REFERENCES runs (id),
    state TEXT NOT NULL,
    enqueued_ms BIGINT NOT NULL,
    worker TEXT,
    lease_until_ms BIGINT,
    attempts BIGINT NOT NULL
);

CREATE INDEX jobs_claim ON jobs (state, enqueued_ms, run_id);
