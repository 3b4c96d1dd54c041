package dev.converge.chain.internal;

import dev.converge.batch.internal.BatchTracker;
import dev.converge.batch.internal.LinkListener;
import dev.converge.chain.ChainState;
import dev.converge.chain.internal.ChainStore.ChainRow;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.FinishContext;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Moves chains along as their links end, in the finishing job's transaction. Each move is a
 * conditional update on the chain's position or state, so a link delivered twice starts the
 * next link once, and {@code catch} and {@code finally} run once.
 */
public final class ChainTracker implements LinkListener {
    private final ChainStore store;
    private final BatchTracker batches;
    private volatile ChainListener flows;

    public ChainTracker(ChainStore store, BatchTracker batches) {
        this.store = store;
        this.batches = batches;
    }

    public void wire(ChainListener flowListener) {
        this.flows = flowListener;
    }

    public ChainStore store() {
        return store;
    }

    /** Starts the chain's link at {@code pos}. */
    public void startLink(FinishContext tx, ChainRow chain, int pos) throws SQLException {
        LinkSpec link = chain.links().get(pos);
        long chainId = chain.progress().id();
        Long flowId = chain.progress().flowId();
        // finish what was started: a later link is due since its chain began, ahead of newer chains' first links
        Instant dueSince = pos == 0 ? null : chain.progress().createdAt();
        if (link.job() != null) {
            tx.enqueue(link.job().toNewJob().inChain(chainId, pos).inFlow(flowId).dueSince(dueSince)
                    .withUniqueKey("chain:" + chainId + ":" + pos));
        } else {
            batches.dispatch(tx, link.batch(), chainId, pos, flowId, dueSince);
        }
    }

    /** A job that is itself a link (not inside a batch) reached a terminal state. */
    public void jobFinished(FinishContext tx, long chainId, int pos, JobState state, String error) throws SQLException {
        if (state == JobState.SUCCEEDED) {
            linkSucceeded(tx, chainId, pos);
        } else if (state == JobState.FAILED) {
            linkFailed(tx, chainId, pos, "link " + pos + " failed for good: " + firstLine(error));
        } else {
            cancel(tx, chainId, "link " + pos + " ended cancelled: " + firstLine(error));
        }
    }

    @Override
    public void linkSucceeded(FinishContext tx, long chainId, int pos) throws SQLException {
        if (!store.advance(tx.connection(), chainId, pos)) {
            return;
        }
        ChainRow chain = store.get(tx.connection(), chainId);
        if (pos + 1 < chain.progress().size()) {
            startLink(tx, chain, pos + 1);
            return;
        }
        if (store.end(tx.connection(), chainId, ChainState.SUCCEEDED, tx.now())) {
            fireFinally(tx, chain);
            if (chain.progress().flowId() != null && flows != null) {
                flows.chainSucceeded(tx, chain.progress().flowId());
            }
        }
    }

    @Override
    public void linkFailed(FinishContext tx, long chainId, int pos, String reason) throws SQLException {
        if (!store.end(tx.connection(), chainId, ChainState.FAILED, tx.now())) {
            return;
        }
        ChainRow chain = store.get(tx.connection(), chainId);
        if (chain.catchJob() != null && store.fireCatch(tx.connection(), chainId)) {
            tx.enqueue(chain.catchJob().toNewJob().withUniqueKey("chain:" + chainId + ":catch"));
        }
        fireFinally(tx, chain);
        if (chain.progress().flowId() != null && flows != null) {
            flows.chainFailed(tx, chain.progress().flowId(), reason);
        }
    }

    /**
     * Ends a running chain as cancelled and runs {@code finally}. Its flow is told, as of a failed
     * link: a flow whose chain ended can make no more progress, and one without a deadline would
     * otherwise stay running for ever. When the flow is what cancelled the chain (it is failing
     * already), telling it again changes nothing.
     */
    public boolean cancel(FinishContext tx, long chainId, String reason) throws SQLException {
        if (!store.end(tx.connection(), chainId, ChainState.CANCELLED, tx.now())) {
            return false;
        }
        ChainRow chain = store.get(tx.connection(), chainId);
        fireFinally(tx, chain);
        if (chain.progress().flowId() != null && flows != null) {
            flows.chainFailed(tx, chain.progress().flowId(), reason);
        }
        return true;
    }

    private void fireFinally(FinishContext tx, ChainRow chain) throws SQLException {
        long id = chain.progress().id();
        if (chain.finallyJob() != null && store.fireFinally(tx.connection(), id)) {
            tx.enqueue(chain.finallyJob().toNewJob().withUniqueKey("chain:" + id + ":finally"));
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
