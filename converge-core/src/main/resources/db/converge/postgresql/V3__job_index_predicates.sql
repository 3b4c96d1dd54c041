-- Index predicates that cannot lure the planner away from the primary key.
-- Keep in step with ../h2/V3__job_index_predicates.sql (H2 has no partial indexes: nothing to change there).

-- A partial index WHERE state = 'running' matches every fenced write ("... AND state = 'running'").
-- With statistics that say no job is running (taken while none was; autovacuum off or behind),
-- the planner reads that index instead of the primary key, i.e. every dead entry any lease ever
-- left in it: each completion got slower with every job the queue had run. The rescuer's
-- "lease_expires_at < now" still implies this predicate, so it keeps its index.
DROP INDEX cv_job_lease;
CREATE INDEX cv_job_lease ON cv_job (lease_expires_at) WHERE lease_expires_at IS NOT NULL;

-- Most jobs have no unique key: keep the NULLs out of the unique index, so that enqueueing and
-- every state change of such a job write one index entry fewer. ON CONFLICT DO NOTHING (without
-- a target) and the 23505 on a taken key work as before.
ALTER TABLE cv_job DROP CONSTRAINT cv_job_unique_key;
CREATE UNIQUE INDEX cv_job_unique_key ON cv_job (unique_key) WHERE unique_key IS NOT NULL;
