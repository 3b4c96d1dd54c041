-- Keep in step with ../h2/V15__unsuccessful_jobs_index.sql.
-- Jobs that failed for good or were cancelled, per queue: what an operator counts and lists, read
-- without scanning the succeeded rows retention keeps (a day's worth). Such rows are rare, so the
-- index costs completions next to nothing. Building it holds off writes to cv_job for as long as
-- reading the table takes (about a second per million rows here); on a larger table, build it by
-- hand first, without holding them off, and this migration then finds it:
--   CREATE INDEX CONCURRENTLY cv_job_unsuccessful ON cv_job (state, queue, id) WHERE state IN ('failed', 'cancelled');
CREATE INDEX IF NOT EXISTS cv_job_unsuccessful ON cv_job (state, queue, id) WHERE state IN ('failed', 'cancelled');
