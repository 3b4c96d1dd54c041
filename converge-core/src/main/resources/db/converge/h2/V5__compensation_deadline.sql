-- A compensating flow has a deadline of its own; the watchdog looks for compensations past it.
-- Keep in step with ../postgresql/V5__compensation_deadline.sql. H2 has no partial indexes: the
-- (state, deadline) index of V1 already serves this lookup.
SELECT 1;
