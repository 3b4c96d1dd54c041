-- Keep in step with ../h2/V14__recurring_pause.sql.
-- A recurring job an operator paused (its slots pass as skipped until it is resumed), and the last
-- thing a person did to it (paused, resumed, ran now), who and why. Additive: nodes of earlier
-- versions ignore the columns (a leader of the previous release still runs a paused job's slots),
-- and this version reads them only once they exist.
ALTER TABLE cv_recurring ADD COLUMN paused_at TIMESTAMPTZ;
ALTER TABLE cv_recurring ADD COLUMN last_action TEXT;
ALTER TABLE cv_recurring ADD COLUMN action_by TEXT;
ALTER TABLE cv_recurring ADD COLUMN action_reason TEXT;
ALTER TABLE cv_recurring ADD COLUMN action_at TIMESTAMPTZ;
