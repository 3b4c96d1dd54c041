-- Keep in step with ../h2/V17__ledger_unresolved_index.sql (H2 has no partial indexes: nothing to change there).

-- One index of the unresolved ledger entries instead of two. Every claim wrote an entry into both
-- cv_ledger_unconfirmed (updated_at, for the reaper) and cv_ledger_owner_job (owner_job_id, for
-- retention), and every confirm wrote one more into cv_ledger_owner_job, which kept confirmed
-- entries too. Who reads them: the reaper (unresolved entries older than a bound), the metrics and
-- the dashboard (unresolved entries counted), retention (an unresolved entry still owned by a job
-- keeps that job). An unresolved entry always has an owner (a claim, a takeover and the start of a
-- teardown set it; a null key would be indexed all the same), so one partial index keyed by the
-- owner serves all of them: retention looks up by owner, the others read the whole index, which
-- holds only the entries in flight.
-- Nodes of the previous version send the same statements; only the plans change.
CREATE INDEX cv_ledger_unresolved ON cv_ledger (owner_job_id) WHERE state IN ('claimed', 'uncertain', 'deleting');
DROP INDEX cv_ledger_unconfirmed;
DROP INDEX cv_ledger_owner_job;
