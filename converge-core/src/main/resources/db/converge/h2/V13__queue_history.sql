-- Keep in step with ../postgresql/V13__queue_history.sql.
-- A queue's history for the dashboard's charts, in minutes since the epoch: each node adds a row
-- per queue and minute with what its deliveries did in it (completions, and how long jobs waited
-- and ran, counted in fixed buckets so that nodes and minutes add up and a p95 can be read from
-- the sums); the leader adds a row per queue with the depth it sampled. Rows older than seven
-- days are deleted by the leader. Additive: nodes of earlier versions neither read nor write it,
-- and this version writes it only once it exists.
-- Buckets (upper bounds): 0 ≤10 ms, 1 ≤50 ms, 2 ≤250 ms, 3 ≤1 s, 4 ≤5 s, 5 ≤30 s, 6 ≤2 min,
-- 7 ≤10 min, 8 longer.
CREATE TABLE cv_queue_history (
    at_minute BIGINT NOT NULL,
    queue     VARCHAR NOT NULL,
    node_id   VARCHAR NOT NULL,
    succeeded INT    NOT NULL,
    failed    INT    NOT NULL,
    retried   INT    NOT NULL,
    depth     INT,
    running   INT,
    w0 INT NOT NULL, w1 INT NOT NULL, w2 INT NOT NULL, w3 INT NOT NULL, w4 INT NOT NULL,
    w5 INT NOT NULL, w6 INT NOT NULL, w7 INT NOT NULL, w8 INT NOT NULL,
    r0 INT NOT NULL, r1 INT NOT NULL, r2 INT NOT NULL, r3 INT NOT NULL, r4 INT NOT NULL,
    r5 INT NOT NULL, r6 INT NOT NULL, r7 INT NOT NULL, r8 INT NOT NULL
);
CREATE INDEX cv_queue_history_queue ON cv_queue_history (queue, at_minute);
CREATE INDEX cv_queue_history_minute ON cv_queue_history (at_minute);
