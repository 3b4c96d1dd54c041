-- Keep in step with ../h2/V4__claim_fences_and_lookup_indexes.sql.

-- A released claim keeps its row (and its fence): the next owner's fence is one higher, so a
-- fence never goes back and an earlier owner's stale fence can never match again.
ALTER TABLE cv_claim ADD COLUMN released_at TIMESTAMPTZ;

-- Hot lookups that read whole tables without these: a flow's batches (cancel, compensate), a
-- subject's ledger entries (teardown), a subject's token of a pool, the token an earlier delivery
-- of a job took, and the reaper's scan of checked-out tokens.
CREATE INDEX cv_batch_flow ON cv_batch (flow_id) WHERE flow_id IS NOT NULL;
CREATE INDEX cv_ledger_subject ON cv_ledger (subject, id);
CREATE INDEX cv_token_subject ON cv_token (pool, subject) WHERE subject IS NOT NULL;
CREATE INDEX cv_token_owner_job ON cv_token (owner_job_id) WHERE owner_job_id IS NOT NULL;
CREATE INDEX cv_token_checked_out ON cv_token (id) WHERE state = 'checked_out';
