-- A site's trial and its subscription; see ../postgresql/V8__trial_and_subscription.sql (H2 has
-- no partial index: the trial scan's index covers every site). Keep the two in step.
ALTER TABLE pv_site ADD COLUMN subscription VARCHAR NOT NULL DEFAULT 'trial';
ALTER TABLE pv_site ADD COLUMN trial_ends_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE pv_site ADD COLUMN subscribed_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE pv_site ADD COLUMN reminder_at TIMESTAMP WITH TIME ZONE;
CREATE INDEX pv_site_trial ON pv_site (subscription, trial_ends_at, id);
