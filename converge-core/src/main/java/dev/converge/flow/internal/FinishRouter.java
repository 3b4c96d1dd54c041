package dev.converge.flow.internal;

import dev.converge.batch.internal.BatchTracker;
import dev.converge.chain.internal.ChainTracker;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.internal.CancellationProbe;
import dev.converge.queue.internal.FinishContext;
import dev.converge.queue.internal.FinishHook;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Routes a finished job to what it belongs to (its batch, else its chain; batches and chains
 * tell their chain and flow in turn), and answers whether a job's work was cancelled.
 */
public final class FinishRouter implements FinishHook, CancellationProbe {
    private final BatchTracker batches;
    private final ChainTracker chains;
    private final FlowStore flows;

    public FinishRouter(BatchTracker batches, ChainTracker chains, FlowStore flows) {
        this.batches = batches;
        this.chains = chains;
        this.flows = flows;
    }

    @Override
    public void onFinished(FinishContext tx, LeasedJob job, JobState state, String error) throws SQLException {
        if (job.batchId() != null) {
            batches.jobFinished(tx, job.batchId(), state, error);
        } else if (job.chainId() != null) {
            chains.jobFinished(tx, job.chainId(), job.chainPos(), state, error);
        }
    }

    @Override
    public boolean cancelled(Connection c, LeasedJob job) throws SQLException {
        String[] s = flows.states(c, job.batchId(), job.flowId());
        return "cancelled".equals(s[0]) || (s[1] != null && !"running".equals(s[1]));
    }
}
