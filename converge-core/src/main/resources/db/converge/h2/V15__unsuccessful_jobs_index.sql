-- Keep in step with ../postgresql/V15__unsuccessful_jobs_index.sql. Nothing to do on H2: its
-- cv_job_fetch index (state, queue, run_at, id) already serves counting and listing failed and
-- cancelled jobs per queue, and H2 has no partial indexes.
SELECT 1;
