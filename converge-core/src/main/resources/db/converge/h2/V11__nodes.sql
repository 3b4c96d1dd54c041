-- Keep in step with ../postgresql/V11__nodes.sql.
-- The fleet: one row per running engine node, written by the node every heartbeat interval and
-- deleted when it stops; the leader deletes rows of nodes not seen for a long time (killed). What
-- a node handles decides whether a job no node has taken is waiting for a node of another version
-- or for nobody (the unhandled-job grace). Additive: nodes of earlier versions ignore it.
CREATE TABLE cv_node (
    node_id    VARCHAR     PRIMARY KEY,
    version    VARCHAR     NOT NULL,
    queues     VARCHAR     NOT NULL,
    job_types  VARCHAR     NOT NULL,
    started_at TIMESTAMP WITH TIME ZONE NOT NULL,
    last_seen  TIMESTAMP WITH TIME ZONE NOT NULL
);
