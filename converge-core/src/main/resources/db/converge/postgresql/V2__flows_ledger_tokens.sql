-- Columns the flow, ledger and token machinery needs beyond the first schema.
-- Keep in step with ../h2/V2__flows_ledger_tokens.sql.

-- Why a flow needs a person (an unsafe operation ended ambiguous, or a compensation gave up).
ALTER TABLE cv_flow ADD COLUMN attention TEXT;
-- Reporting hooks, run only after compensation (or on success): serialized job specs.
ALTER TABLE cv_flow ADD COLUMN on_success TEXT;
ALTER TABLE cv_flow ADD COLUMN on_failure TEXT;

ALTER TABLE cv_compensation ADD COLUMN attempts INT NOT NULL DEFAULT 0;

-- A token whose use has started (the unsafe call may have gone out) is never handed out again blindly.
ALTER TABLE cv_token ADD COLUMN used_at TIMESTAMPTZ;
ALTER TABLE cv_token ADD COLUMN subject TEXT;
