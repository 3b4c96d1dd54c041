-- Public ids that reveal nothing: a random id per site, lead, conversation and token, prefixed
-- by its kind (site_3fa85f64...), beside the database's own key, which stays the key every
-- table joins on. The database makes them (the column default), so rows inserted by nodes of
-- the previous version, which do not name the column, get one too; rows that exist get theirs
-- here. Additive. Keep in step with ../postgresql/V10__public_ids.sql.
ALTER TABLE pv_site ADD COLUMN public_id VARCHAR DEFAULT ('site_' || REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', ''));
UPDATE pv_site SET public_id = ('site_' || REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', '')) WHERE public_id IS NULL;
ALTER TABLE pv_site ALTER COLUMN public_id SET NOT NULL;
CREATE UNIQUE INDEX pv_site_public_id ON pv_site (public_id);
ALTER TABLE pv_lead ADD COLUMN public_id VARCHAR DEFAULT ('lead_' || REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', ''));
UPDATE pv_lead SET public_id = ('lead_' || REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', '')) WHERE public_id IS NULL;
ALTER TABLE pv_lead ALTER COLUMN public_id SET NOT NULL;
CREATE UNIQUE INDEX pv_lead_public_id ON pv_lead (public_id);
ALTER TABLE pv_conversation ADD COLUMN public_id VARCHAR DEFAULT ('conv_' || REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', ''));
UPDATE pv_conversation SET public_id = ('conv_' || REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', '')) WHERE public_id IS NULL;
ALTER TABLE pv_conversation ALTER COLUMN public_id SET NOT NULL;
CREATE UNIQUE INDEX pv_conversation_public_id ON pv_conversation (public_id);
ALTER TABLE pv_token ADD COLUMN public_id VARCHAR DEFAULT ('tok_' || REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', ''));
UPDATE pv_token SET public_id = ('tok_' || REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', '')) WHERE public_id IS NULL;
ALTER TABLE pv_token ALTER COLUMN public_id SET NOT NULL;
CREATE UNIQUE INDEX pv_token_public_id ON pv_token (public_id);
