package dev.converge.queue.internal;

import java.sql.Connection;
import java.sql.SQLException;

/** Answers {@code Delivery.cancelled()}: is the batch or flow this job belongs to still going? */
@FunctionalInterface
public interface CancellationProbe {
    CancellationProbe NEVER = (c, job) -> false;

    boolean cancelled(Connection c, LeasedJob job) throws SQLException;
}
