-- Keep in step with ../h2/V9__job_trace_parent.sql.
-- The W3C traceparent of the context a job was enqueued in (null without tracing), so that its
-- delivery's span continues the enqueuer's trace.
ALTER TABLE cv_job ADD COLUMN trace_parent TEXT;
