-- Recurring schedules and the indexes retention reads. Keep in step with
-- ../postgresql/V7__recurring_retention.sql (H2 has no partial indexes: plain ones here).

CREATE TABLE cv_recurring (
    name        VARCHAR(400)             PRIMARY KEY,
    last_slot   TIMESTAMP WITH TIME ZONE NOT NULL,
    last_job_id BIGINT,
    skipped     BIGINT                   NOT NULL DEFAULT 0,
    updated_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE INDEX cv_job_finished ON cv_job (state, finished_at);
CREATE INDEX cv_job_chain ON cv_job (chain_id);
CREATE INDEX cv_batch_finished ON cv_batch (state, finished_at);
CREATE INDEX cv_batch_chain ON cv_batch (chain_id);
CREATE INDEX cv_chain_finished ON cv_chain (state, finished_at);
CREATE INDEX cv_chain_flow ON cv_chain (flow_id);
CREATE INDEX cv_flow_finished ON cv_flow (state, finished_at);
CREATE INDEX cv_ledger_owner_job ON cv_ledger (owner_job_id);
