-- Boards an operator registered on a running service (POST /boards): the
-- board's JSON as given (its track and cars written out in full, no file
-- names), so every process sharing the database, and every restart, ranks
-- it too. Keyed by the track's key, as a boards file's boards are.
CREATE TABLE registered_boards (
    track_key TEXT PRIMARY KEY,
    board TEXT NOT NULL,
    registered_ms BIGINT NOT NULL,
    registered_by TEXT NOT NULL
);
