-- The simulation version each run was recorded with, read from the
-- replay's header at upload (NULL for runs stored before this column; the
-- service fills those in when it starts). It chooses the core that can
-- re-verify the run: the native one, or an archived one (cores/).
ALTER TABLE runs ADD COLUMN simulation_version BIGINT;
