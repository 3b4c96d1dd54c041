-- Keep in step with ../postgresql/V18__node_presence.sql. H2 has no advisory locks and the engine
-- records no presence on it; the columns keep both databases at the same schema.
ALTER TABLE cv_node ADD COLUMN presence_key BIGINT;
ALTER TABLE cv_node ADD COLUMN present_since TIMESTAMP WITH TIME ZONE;
