-- Keep in step with ../postgresql/V17__ledger_unresolved_index.sql, which replaces two partial
-- indexes of cv_ledger with one. H2 has no partial indexes, so its indexes stay as they are; this
-- script only keeps both databases at the same schema version.
SELECT 1;
