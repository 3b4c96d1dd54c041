-- A site's trial and its subscription. A site is 'trial' until its tenant subscribes it
-- ('subscribed'), or until the trial ends and the expiry job takes it down ('expired'); the two
-- are decided by one conditional write each (WHERE subscription = 'trial'), so a subscription
-- racing the expiry has exactly one outcome. trial_ends_at is fixed when the site is requested;
-- NULL means no deadline (no trial configured, or a site from before this version): such a site
-- never expires on its own. reminder_at is when its reminder email was queued (once per site).
-- Additive only: nodes of the previous version insert sites as before and get the defaults.
-- Keep in step with ../h2/V8__trial_and_subscription.sql.
ALTER TABLE pv_site ADD COLUMN subscription TEXT NOT NULL DEFAULT 'trial';
ALTER TABLE pv_site ADD COLUMN trial_ends_at TIMESTAMPTZ;
ALTER TABLE pv_site ADD COLUMN subscribed_at TIMESTAMPTZ;
ALTER TABLE pv_site ADD COLUMN reminder_at TIMESTAMPTZ;
-- The expiry job's and the reminder's scans: trial sites by deadline, a bounded read per pass.
CREATE INDEX pv_site_trial ON pv_site (trial_ends_at, id) WHERE subscription = 'trial';
