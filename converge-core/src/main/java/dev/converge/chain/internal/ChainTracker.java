package dev.converge.chain.internal;

import dev.converge.batch.internal.BatchTracker;
import dev.converge.chain.ChainState;
import dev.converge.chain.internal.ChainStore.ChainRow;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.FinishContext;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Moves chains along as their links end, in the finishing job's transaction, and says what that
 * means for the chain's flow ({@link ChainEnd}) instead of telling it. Each move is a
 * conditional update on the chain's position or state, so a link delivered twice starts the
 * next link once, and {@code catch} and {@code finally} run once.
 */
public final class ChainTracker {
    private final ChainStore store;
    private final BatchTracker batches;

    public ChainTracker(ChainStore store, BatchTracker batches) {
        this.store = store;
        this.batches = batches;
    }

    public ChainStore store() {
        return store;
    }

    /** Starts the chain's link at {@code pos}. */
    public void startLink(FinishContext tx, ChainRow chain, int pos) throws SQLException {
        LinkSpec link = chain.link(pos);
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

    /** A job that is itself a link (not inside a batch) reached a terminal state; returns what it means for the flow. */
    public ChainEnd jobFinished(FinishContext tx, long chainId, int pos, JobState state, String error) throws SQLException {
        if (state == JobState.SUCCEEDED) {
            return linkSucceeded(tx, chainId, pos);
        } else if (state == JobState.FAILED) {
            return linkFailed(tx, chainId, pos, "link " + pos + " failed for good: " + firstLine(error));
        }
        return cancel(tx, chainId, "link " + pos + " ended cancelled: " + firstLine(error));
    }

    /** The link at {@code pos} succeeded: the next one starts, or the chain ends (once) and its flow is told. */
    public ChainEnd linkSucceeded(FinishContext tx, long chainId, int pos) throws SQLException {
        if (!store.advance(tx.connection(), chainId, pos)) {
            return ChainEnd.NONE;
        }
        ChainRow chain = store.get(tx.connection(), chainId);
        if (pos + 1 < chain.progress().size()) {
            startLink(tx, chain, pos + 1);
            return ChainEnd.NONE;
        }
        if (!store.end(tx.connection(), chainId, ChainState.SUCCEEDED, tx.now())) {
            return ChainEnd.NONE;
        }
        fireFinally(tx, chain);
        return chain.progress().flowId() == null ? ChainEnd.NONE : new ChainEnd.Succeeded(chain.progress().flowId());
    }

    /** The link at {@code pos} failed: the chain ends failed (once), runs its catch and finally, and its flow is told. */
    public ChainEnd linkFailed(FinishContext tx, long chainId, int pos, String reason) throws SQLException {
        if (!store.end(tx.connection(), chainId, ChainState.FAILED, tx.now())) {
            return ChainEnd.NONE;
        }
        ChainRow chain = store.get(tx.connection(), chainId);
        if (chain.catchJob() != null && store.fireCatch(tx.connection(), chainId)) {
            tx.enqueue(chain.catchJob().toNewJob().withUniqueKey("chain:" + chainId + ":catch"));
        }
        fireFinally(tx, chain);
        return chain.progress().flowId() == null ? ChainEnd.NONE
                : new ChainEnd.Failed(chain.progress().flowId(), reason);
    }

    /**
     * Ends a running chain as cancelled and runs {@code finally}. Its flow is told, as of a failed
     * link: a flow whose chain ended can make no more progress, and one without a deadline would
     * otherwise stay running for ever. When the flow is what cancelled the chain (it is failing
     * already), it has nothing to be told.
     */
    public ChainEnd cancel(FinishContext tx, long chainId, String reason) throws SQLException {
        if (!store.end(tx.connection(), chainId, ChainState.CANCELLED, tx.now())) {
            return ChainEnd.NONE;
        }
        ChainRow chain = store.get(tx.connection(), chainId);
        fireFinally(tx, chain);
        return chain.progress().flowId() == null ? ChainEnd.NONE
                : new ChainEnd.Failed(chain.progress().flowId(), reason);
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
