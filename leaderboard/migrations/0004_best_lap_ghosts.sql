-- The fastest valid lap of each verified run as a ghost (.skg bytes), cut
-- by the race layer while the run was re-simulated, so a player can race
-- the record, or the runs just above their own, without re-simulating.
CREATE TABLE ghosts (
    run_id TEXT PRIMARY KEY REFERENCES runs (id),
    bytes BYTEA NOT NULL
);
