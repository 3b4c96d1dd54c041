package dev.converge.flow.internal;

import dev.converge.batch.internal.BatchTracker;
import dev.converge.batch.internal.LinkEnd;
import dev.converge.chain.internal.ChainEnd;
import dev.converge.chain.internal.ChainTracker;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.CancellationProbe;
import dev.converge.queue.internal.FinishContext;
import dev.converge.queue.internal.FinishHook;
import dev.converge.queue.internal.LeasedJob;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The one path a finished job takes upwards, in its finishing transaction: to its batch, the
 * batch's end to its chain, the chain's end to its flow. Each tracker moves its own rows and
 * returns what that means for the level above ({@link LinkEnd}, {@link ChainEnd}); only this
 * router goes up, so the trackers call nothing above them (a failing flow calls down to cancel
 * its chain and batches, and ignores what they would tell it: it is failing already). It also
 * answers whether a job's work was cancelled.
 */
public final class CompletionRouter implements FinishHook, CancellationProbe {
    private final BatchTracker batches;
    private final ChainTracker chains;
    private final FlowTracker flows;

    public CompletionRouter(BatchTracker batches, ChainTracker chains, FlowTracker flows) {
        this.batches = batches;
        this.chains = chains;
        this.flows = flows;
    }

    @Override
    public void onFinished(FinishContext tx, LeasedJob job, JobState state, String error) throws SQLException {
        if (job.batchId() != null) {
            linkEnded(tx, batches.jobFinished(tx, job.batchId(), state, error));
        } else if (job.chainId() != null) {
            chainEnded(tx, chains.jobFinished(tx, job.chainId(), job.chainPos(), state, error));
        }
    }

    private void linkEnded(FinishContext tx, LinkEnd end) throws SQLException {
        if (end instanceof LinkEnd.Succeeded s) {
            chainEnded(tx, chains.linkSucceeded(tx, s.chainId(), s.position()));
        } else if (end instanceof LinkEnd.Failed f) {
            chainEnded(tx, chains.linkFailed(tx, f.chainId(), f.position(), f.reason()));
        }
    }

    private void chainEnded(FinishContext tx, ChainEnd end) throws SQLException {
        if (end instanceof ChainEnd.Succeeded s) {
            flows.chainSucceeded(tx, s.flowId());
        } else if (end instanceof ChainEnd.Failed f) {
            flows.chainFailed(tx, f.flowId(), f.reason());
        }
    }

    @Override
    public boolean cancelled(Connection c, LeasedJob job) throws SQLException {
        return flows.store().cancelled(c, job.batchId(), job.flowId());
    }
}
