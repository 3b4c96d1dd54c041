-- Keep in step with ../h2/V11__nodes.sql.
-- The fleet: one row per running engine node, written by the node every heartbeat interval and
-- deleted when it stops; the leader deletes rows of nodes not seen for a long time (killed). What
-- a node handles decides whether a job no node has taken is waiting for a node of another version
-- or for nobody (the unhandled-job grace). Additive: nodes of earlier versions ignore it.
CREATE TABLE cv_node (
    node_id    TEXT        PRIMARY KEY,
    version    TEXT        NOT NULL,
    queues     TEXT        NOT NULL,
    job_types  TEXT        NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    last_seen  TIMESTAMPTZ NOT NULL
);
