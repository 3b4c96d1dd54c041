-- A person's hand when automation stops: who acted on a flow (null for the engine itself), and how
-- many times a person restarted it (each restart's jobs are keyed apart from the earlier ones').
ALTER TABLE cv_flow_event ADD COLUMN actor TEXT;
ALTER TABLE cv_flow ADD COLUMN retries INT NOT NULL DEFAULT 0;
