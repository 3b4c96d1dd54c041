package dev.converge.queue.internal;

import dev.converge.queue.JobState;
import java.sql.SQLException;

/**
 * Reacts, inside the same transaction, to a job of a batch, chain or flow reaching a terminal
 * state. Because the job's own transition was conditional on its lease epoch, a hook runs once
 * per job however many times the job was delivered.
 */
public interface FinishHook {
    void onFinished(FinishContext tx, LeasedJob job, JobState state, String error) throws SQLException;
}
