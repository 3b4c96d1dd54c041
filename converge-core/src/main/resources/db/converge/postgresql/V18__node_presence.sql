-- Keep in step with ../h2/V18__node_presence.sql.

-- A node's sign of life that ends with its process. A working node takes a session advisory lock
-- under presence_key on its listening connection and records the key, with the server's time, from
-- that same session. When the process dies (SIGKILL, a halt, the OOM killer) the server ends the
-- session and the lock goes with it: rescuers on other nodes then put back the node's jobs at once
-- instead of waiting out their leases. present_since tells a record made before the server's last
-- start (every lock went with the restart) from one that can be trusted.
-- Nodes of the previous version neither write nor read these columns: their rows stay null, and
-- their jobs are rescued when their leases expire, as before.
ALTER TABLE cv_node ADD COLUMN presence_key BIGINT;
ALTER TABLE cv_node ADD COLUMN present_since TIMESTAMP WITH TIME ZONE;
