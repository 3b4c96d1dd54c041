-- A compensating flow has a deadline of its own (as long again as the flow had); the watchdog
-- looks for compensations past it. Keep in step with ../h2/V5__compensation_deadline.sql.
CREATE INDEX cv_flow_compensation_deadline ON cv_flow (deadline) WHERE state = 'compensating';
