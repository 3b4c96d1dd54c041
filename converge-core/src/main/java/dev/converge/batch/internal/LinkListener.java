package dev.converge.batch.internal;

import dev.converge.queue.internal.FinishContext;
import java.sql.SQLException;

/** Told when a batch that is one link of a chain succeeds or fails, in the same transaction. */
public interface LinkListener {
    void linkSucceeded(FinishContext tx, long chainId, int position) throws SQLException;

    void linkFailed(FinishContext tx, long chainId, int position, String reason) throws SQLException;
}
