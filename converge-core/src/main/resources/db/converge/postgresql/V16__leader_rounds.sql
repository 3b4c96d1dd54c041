-- Keep in step with ../h2/V16__leader_rounds.sql.
-- What the fleet's leader tasks (retention, reaper, watchdog, recurring, fleet, history) last did:
-- the node that ran a round, when, and what it did; and the last round that changed something.
-- Written by the node holding the task's claim (a round that changed nothing at most every 30 s).
-- Additive: nodes of earlier versions do not write it, and this version writes it only once it exists.
CREATE TABLE cv_leader_round (
    task         TEXT        PRIMARY KEY,
    node_id      TEXT        NOT NULL,
    round_at     TIMESTAMPTZ NOT NULL,
    outcome      TEXT        NOT NULL,
    detail       TEXT,
    changed_at   TIMESTAMPTZ,
    changed_detail TEXT
);
