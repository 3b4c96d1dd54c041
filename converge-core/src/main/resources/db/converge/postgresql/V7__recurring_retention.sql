-- Recurring schedules and the indexes retention reads. Keep in step with ../h2/V7__recurring_retention.sql.

-- One row per recurring schedule: the last slot that was decided (enqueued or skipped), so that a
-- slot is decided once across the cluster (the row is locked while deciding) and missed slots after
-- downtime can be recognised.
CREATE TABLE cv_recurring (
    name        TEXT        PRIMARY KEY,
    last_slot   TIMESTAMPTZ NOT NULL,
    last_job_id BIGINT,
    skipped     BIGINT      NOT NULL DEFAULT 0,
    updated_at  TIMESTAMPTZ NOT NULL
);

-- Retention finds old finished rows without reading live ones, and checks that nothing live still
-- points at a batch, chain or flow through these indexes (bounded lookups, never scans).
CREATE INDEX cv_job_finished ON cv_job (finished_at) WHERE state IN ('succeeded', 'failed', 'cancelled');
CREATE INDEX cv_job_chain ON cv_job (chain_id) WHERE chain_id IS NOT NULL;
CREATE INDEX cv_batch_finished ON cv_batch (finished_at) WHERE state <> 'running';
CREATE INDEX cv_batch_chain ON cv_batch (chain_id) WHERE chain_id IS NOT NULL;
CREATE INDEX cv_chain_finished ON cv_chain (finished_at) WHERE state <> 'running';
CREATE INDEX cv_chain_flow ON cv_chain (flow_id) WHERE flow_id IS NOT NULL;
CREATE INDEX cv_flow_finished ON cv_flow (finished_at) WHERE state IN ('succeeded', 'failed');
CREATE INDEX cv_ledger_owner_job ON cv_ledger (owner_job_id) WHERE owner_job_id IS NOT NULL;
