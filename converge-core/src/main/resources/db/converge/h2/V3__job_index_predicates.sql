-- Keep in step with ../postgresql/V3__job_index_predicates.sql, which replaces two partial
-- indexes of cv_job. H2 has no partial indexes, so its indexes stay as they are; this script
-- only keeps both databases at the same schema version.
SELECT 1;
