package dev.converge.chain.internal;

import dev.converge.queue.internal.FinishContext;
import java.sql.SQLException;

/** Told when a chain that is a flow's body succeeds or fails, in the same transaction. */
public interface ChainListener {
    void chainSucceeded(FinishContext tx, long flowId) throws SQLException;

    void chainFailed(FinishContext tx, long flowId, String reason) throws SQLException;
}
