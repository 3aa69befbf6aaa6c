-- Identities. A player is a name, claimed once (by signing up, or by an
-- operator's `token issue`); a banned player's tokens are refused and
-- their runs leave the rankings. Tokens are stored as the blake3 hash of
-- the secret the holder was given once: a copy of the database gives no
-- one a way in. admin is 1 for tokens that may delete runs and ban.
CREATE TABLE players (
    name TEXT PRIMARY KEY,
    created_ms BIGINT NOT NULL,
    banned_ms BIGINT,
    ban_reason TEXT
);

CREATE TABLE tokens (
    hash TEXT PRIMARY KEY,
    player TEXT NOT NULL REFERENCES players (name),
    admin BIGINT NOT NULL,
    issued_ms BIGINT NOT NULL,
    revoked_ms BIGINT
);

CREATE INDEX tokens_player ON tokens (player);

-- Who submitted a run (NULL for runs stored before identities); a
-- submitted run ranks under this name, never the replay's metadata.
ALTER TABLE runs ADD COLUMN submitter TEXT;

-- The fair queue: each job gets a turn when it is queued, one past its
-- submitter's last job still waiting and no earlier than the oldest turn
-- still queued; workers claim the lowest turn first. A flood from one
-- player takes turns 5, 6, 7…, a single run from another takes turn 5
-- too, so it waits behind at most one job of the flood.
ALTER TABLE jobs ADD COLUMN submitter TEXT;
ALTER TABLE jobs ADD COLUMN turn BIGINT NOT NULL DEFAULT 0;

CREATE INDEX jobs_fair ON jobs (state, turn, enqueued_ms, run_id);
CREATE INDEX jobs_submitter ON jobs (submitter, state, turn);

-- "Alice" cannot be claimed beside "alice" (lower() folds ASCII on both
-- engines).
CREATE UNIQUE INDEX players_folded ON players (lower(name));
