-- A deleted site's subdomain is held for its tenant: the claim row stays, marked released_at,
-- and only its own tenant may take it again until the hold (--subdomain-hold, 30 days) has passed.
-- Additive: nodes of the previous version still delete the row on release (the subdomain is free
-- at once, as before) and cannot take a released row (they answer "taken" until a node of this
-- version takes it). Keep in step with the other dialect's V9__subdomain_hold.sql.
ALTER TABLE pv_subdomain ADD COLUMN released_at TIMESTAMP WITH TIME ZONE;
