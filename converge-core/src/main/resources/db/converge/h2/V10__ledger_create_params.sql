-- Keep in step with ../postgresql/V10__ledger_create_params.sql.
-- What a create idempotent by a leaf key was sent, kept from the claim on (JSON; null for other
-- types and for entries claimed before this column): teardown and the reaper resend the create with
-- the entry's own key to learn the resource of an owner that died before it recorded the answer.
ALTER TABLE cv_ledger ADD COLUMN create_params VARCHAR;
