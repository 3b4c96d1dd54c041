-- Keep in step with ../postgresql/V4__claim_fences_and_lookup_indexes.sql (H2 has no partial
-- indexes: the filtering column leads instead).

-- A released claim keeps its row (and its fence): the next owner's fence is one higher, so a
-- fence never goes back and an earlier owner's stale fence can never match again.
ALTER TABLE cv_claim ADD COLUMN released_at TIMESTAMP WITH TIME ZONE;

-- Hot lookups that read whole tables without these: a flow's batches (cancel, compensate), a
-- subject's ledger entries (teardown), a subject's token of a pool, the token an earlier delivery
-- of a job took, and the reaper's scan of checked-out tokens.
CREATE INDEX cv_batch_flow ON cv_batch (flow_id);
CREATE INDEX cv_ledger_subject ON cv_ledger (subject, id);
CREATE INDEX cv_token_subject ON cv_token (pool, subject);
CREATE INDEX cv_token_owner_job ON cv_token (owner_job_id);
CREATE INDEX cv_token_checked_out ON cv_token (state, id);
