package dev.converge.flow.internal;

import dev.converge.batch.internal.BatchTracker;
import dev.converge.chain.internal.LinkSpec;
import dev.converge.chain.internal.ChainStore;
import dev.converge.chain.internal.ChainTracker;
import dev.converge.flow.Compensation;
import dev.converge.flow.FlowState;
import dev.converge.flow.internal.FlowStore.FlowRow;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.internal.NewJob;
import dev.converge.queue.internal.FinishContext;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves flows through their state machine inside the transactions that decide them. The
 * terminal-failure path ({@link #fail}) is one conditional update from {@code running}: the
 * chain's catch, the watchdog and an operator may all call it for the same flow at once, and
 * only one of them cancels the flow's work and schedules its compensation; the others learn
 * they lost and do nothing. Compensation runs in its own durable job, never in the cancelled
 * context, and the failure is reported only after it.
 */
public final class FlowTracker {
    private static final Logger log = LoggerFactory.getLogger(FlowTracker.class);
    /** The built-in job type that runs a failed flow's compensations. */
    public static final String COMPENSATE_KIND = "converge.flow.compensate";

    /**
     * The states of a flow that may still register a compensation: running (it runs if the flow fails) and
     * compensating (it runs before the flow ends). Whoever registers one in a statement of its own (the
     * ledger's claim on PostgreSQL) checks these under the flow row's shared lock, as {@link #admitCompensation}.
     */
    public static final java.util.Set<FlowState> ACCEPTS_COMPENSATIONS = java.util.Collections.unmodifiableSet(
            java.util.EnumSet.of(FlowState.RUNNING, FlowState.COMPENSATING));

    private final FlowStore store;
    private final ChainTracker chains;
    private final BatchTracker batches;
    private final dev.converge.queue.internal.EngineObserver events;
    private final String compensateQueue;
    private final long compensationAtLeastMs;

    /**
     * {@code events}: where flows' moves are reported (metrics), inside the transaction that makes
     * them (a transaction rolled back after the move, a deadlock victim run again, reports it
     * twice); {@code compensateQueue}: where compensation jobs run; {@code compensationAtLeast}:
     * the least time a failed flow's compensation is given before it needs a person.
     */
    public FlowTracker(FlowStore store, ChainTracker chains, BatchTracker batches,
            dev.converge.queue.internal.EngineObserver events, String compensateQueue,
            java.time.Duration compensationAtLeast) {
        this.store = store;
        this.chains = chains;
        this.batches = batches;
        this.events = java.util.Objects.requireNonNull(events);
        this.compensateQueue = compensateQueue;
        this.compensationAtLeastMs = compensationAtLeast.toMillis();
    }

    public FlowStore store() {
        return store;
    }

    /** Creates the flow's chain and starts its first step. */
    public void begin(FinishContext tx, long flowId, String kind, List<LinkSpec> steps) throws SQLException {
        ChainStore cs = chains.store();
        long chainId = cs.insert(tx.connection(), kind, steps, null, null, flowId, tx.now());
        store.setChain(tx.connection(), flowId, chainId);
        store.addEvent(tx.connection(), flowId, null, FlowState.RUNNING, "started", tx.now());
        chains.startLink(tx, cs.get(tx.connection(), chainId), 0);
    }

    /** The flow's chain ran every link: the flow succeeded (once) and reports. */
    public void chainSucceeded(FinishContext tx, long flowId) throws SQLException {
        if (store.transition(tx.connection(), flowId, FlowState.RUNNING, FlowState.SUCCEEDED, "every step succeeded",
                tx.now())) {
            FlowRow row = store.get(tx.connection(), flowId).orElseThrow();
            events.flowMoved(row.view().kind(), FlowState.SUCCEEDED.sql());
            if (row.onSuccess() != null) {
                // the report is the flow's last step: due since the flow began, as its other steps are
                tx.enqueue(row.onSuccess().toNewJob().withUniqueKey("flow:" + flowId + ":succeeded")
                        .dueSince(row.view().createdAt()));
            }
        }
    }

    /** The flow's chain failed or was cancelled: the flow fails (once). */
    public void chainFailed(FinishContext tx, long flowId, String reason) throws SQLException {
        fail(tx, flowId, reason);
    }

    /**
     * The terminal-failure path: running -> compensating, once. Cancels the flow's chain, its
     * unfinished batches and its jobs not yet started, then schedules compensation.
     *
     * @return whether this call failed the flow (false: it was already failing, failed or done)
     */
    public boolean fail(FinishContext tx, long flowId, String reason) throws SQLException {
        store.lockRunningParts(tx.connection(), flowId);
        if (!store.transition(tx.connection(), flowId, FlowState.RUNNING, FlowState.COMPENSATING, reason, tx.now())) {
            return false;
        }
        FlowRow row = store.get(tx.connection(), flowId).orElseThrow();
        events.flowMoved(row.view().kind(), FlowState.COMPENSATING.sql());
        if (row.view().deadline() != null) {
            store.compensationDeadline(tx.connection(), flowId,
                    Math.max(compensationAtLeastMs,
                            java.time.Duration.between(row.view().createdAt(), row.view().deadline()).toMillis()),
                    tx.now());
        }
        String why = "flow " + flowId + " failed: " + reason;
        // downwards only: what the chain and batches would tell this flow, it knows (it is failing)
        if (row.view().chainId() != null) {
            chains.cancel(tx, row.view().chainId(), why);
        }
        for (long batchId : batches.store().unfinishedInFlow(tx.connection(), flowId)) {
            batches.cancel(tx, batchId, why);
        }
        store.cancelLooseJobs(tx.connection(), flowId, why, tx.now());
        // undoing a failed flow is the rest of it: due since it began, as its steps were
        tx.enqueue(compensatingJob(flowId, 0).dueSince(row.view().createdAt()));
        return true;
    }

    /**
     * The job that runs a flow's compensations in one round: round 0 when the flow fails, round
     * n after a person's n-th retry. Its unique key and payload carry the round, so a retry's job
     * is a new one and the job it supersedes can tell that it was.
     */
    private NewJob compensatingJob(long flowId, int round) {
        return new NewJob(compensateQueue, COMPENSATE_KIND, "{\"flowId\":" + flowId + ",\"round\":" + round + "}",
                null, 0, Compensator.ATTEMPTS, null, compensatingKey(flowId, round), null, null, null, null);
    }

    private static String compensatingKey(long flowId, int round) {
        return "flow:" + flowId + ":compensate" + (round == 0 ? "" : ":retry-" + round);
    }

    /** The unique keys of the compensating jobs of rounds before {@code round}. */
    private static List<String> earlierRounds(long flowId, int round) {
        List<String> keys = new ArrayList<>(round);
        for (int r = 0; r < round; r++) {
            keys.add(compensatingKey(flowId, r));
        }
        return keys;
    }

    /**
     * What the compensating job does next. {@code run}: the next compensation (newest first);
     * {@code waitForSteps}: a step of the flow is still running (its side effect may still
     * happen, and it may still register what undoes it), so nothing is undone yet and the flow
     * must not end; {@code over}: the flow has left {@code compensating} (this call may have ended
     * it). Decided under the flow's row lock, which registering a compensation takes too.
     */
    public record CompensationTurn(Compensation run, boolean waitForSteps, boolean over) {
    }

    public CompensationTurn compensationTurn(FinishContext tx, long flowId, Integer round) throws SQLException {
        if (store.lockState(tx.connection(), flowId) != FlowState.COMPENSATING) {
            return new CompensationTurn(null, false, true);
        }
        // a job of an earlier round than the flow's (a person retried the flow since it was
        // enqueued) is superseded: the newer round's job does what is left. A job without a round
        // was enqueued by a node of an earlier version, which fenced nothing: it goes on.
        int current = round == null ? 0 : store.retries(tx.connection(), flowId);
        if (round != null && round != current) {
            log.info("flow {}: compensating job of round {} is superseded by round {}; it stops", flowId, round, current);
            return new CompensationTurn(null, false, true);
        }
        // the job of an earlier round may still be in a compensation's call (a slow refund): this
        // round starts nothing until it has stopped, so no compensation runs twice at once
        if (current > 0 && store.runningJobs(tx.connection(), earlierRounds(flowId, current)) > 0) {
            return new CompensationTurn(null, true, false);
        }
        // steps that were running when the flow failed and came back since (lease expired and
        // rescued, or a retry with backoff) must not start again
        String why = "flow " + flowId + " is compensating";
        store.cancelLooseJobs(tx.connection(), flowId, why, tx.now());
        for (long batchId : batches.store().unfinishedInFlow(tx.connection(), flowId)) {
            batches.cancelStragglers(tx, batchId, why);
        }
        if (store.runningSteps(tx.connection(), flowId) > 0) {
            return new CompensationTurn(null, true, false);
        }
        Optional<Compensation> next = store.nextCompensation(tx.connection(), flowId);
        if (next.isPresent()) {
            return new CompensationTurn(next.get(), false, false);
        }
        boolean allDone = store.compensations(tx.connection(), flowId).stream()
                .noneMatch(x -> "failed".equals(x.state()));
        compensated(tx, flowId, allDone);
        return new CompensationTurn(null, false, true);
    }

    /**
     * Checks, under a shared lock of the flow's row, that a compensation may still be registered:
     * the flow is running or compensating (then it will run). A flow that has ended would never run
     * it, so the registering step is refused before its side effect. The lock is shared so that the
     * steps of one batch register side by side; the flow cannot change state, nor its compensation
     * decide what to undo (it takes the row's exclusive lock), until the registration commits.
     */
    public void admitCompensation(java.sql.Connection c, long flowId) throws SQLException {
        FlowState state = store.shareState(c, flowId);
        if (!ACCEPTS_COMPENSATIONS.contains(state)) {
            throw ended(flowId, state);
        }
    }

    /** The refusal of a step that would register a compensation with a flow that has ended. */
    public static JobCancelledException ended(long flowId, FlowState state) {
        return new JobCancelledException("flow " + flowId + " has already ended (" + state.sql()
                + "): a compensation registered now would never run, so this step must not act");
    }

    /** Compensation is over: report the failure (once), as failed or as needing a person. */
    public void compensated(FinishContext tx, long flowId, boolean allDone) throws SQLException {
        FlowRow row = store.get(tx.connection(), flowId).orElseThrow();
        boolean attention = !allDone || row.view().attention() != null;
        String why = !allDone ? "a compensation gave up; what it should have undone may still exist"
                : attention ? row.view().attention() : "compensation complete";
        end(tx, row, attention ? FlowState.NEEDS_ATTENTION : FlowState.FAILED, why);
    }

    /**
     * The watchdog found the flow still compensating past the deadline its compensation was
     * given (a step hangs under a live lease, a compensation keeps failing): it ends
     * {@code needs_attention}, saying what was left, and the failure is reported. The
     * compensating job sees the flow has ended and stops. False if it was no longer compensating.
     */
    public boolean compensationOverdue(FinishContext tx, long flowId) throws SQLException {
        if (store.lockState(tx.connection(), flowId) != FlowState.COMPENSATING) {
            return false;
        }
        String why = "compensation did not finish within its deadline: "
                + store.compensationsNotDone(tx.connection(), flowId) + " compensation(s) not done, "
                + store.runningSteps(tx.connection(), flowId) + " step(s) still running; "
                + "what they should have undone may still exist";
        store.flagAttention(tx.connection(), flowId, why, tx.now());
        return end(tx, store.get(tx.connection(), flowId).orElseThrow(), FlowState.NEEDS_ATTENTION, why);
    }

    /**
     * A person's retry of a flow that needs attention: back to compensating from where it
     * stopped (compensations that gave up run again, newest first; those done stay done), with
     * the person and the reason in its history. One conditional update from
     * {@code needs_attention}: of any number of retries at once, one restarts it.
     *
     * @return whether this call restarted the flow
     */
    public boolean retry(FinishContext tx, long flowId, String actor, String reason) throws SQLException {
        if (!store.reopen(tx.connection(), flowId, compensationAtLeastMs, tx.now())) {
            return false;
        }
        store.addEvent(tx.connection(), flowId, FlowState.NEEDS_ATTENTION, FlowState.COMPENSATING,
                "retried by a person: " + reason, actor, tx.now());
        store.resetGaveUp(tx.connection(), flowId);
        int round = store.retries(tx.connection(), flowId);
        // the earlier round's job may be waiting to retry a compensation: it is superseded
        store.cancelWaitingJobs(tx.connection(), earlierRounds(flowId, round),
                "superseded by a person's retry of flow " + flowId, tx.now());
        tx.enqueue(compensatingJob(flowId, round));
        return true;
    }

    /** Keys the jobs of a restarted flow apart from the earlier rounds' (unique keys are for ever). */
    private String round(FinishContext tx, long flowId) throws SQLException {
        int n = store.retries(tx.connection(), flowId);
        return n == 0 ? "" : ":retry-" + n;
    }

    /** The one way out of compensating: the end state, its reason, then the failure report (once). */
    private boolean end(FinishContext tx, FlowRow row, FlowState end, String why) throws SQLException {
        long flowId = row.view().id();
        if (!store.transition(tx.connection(), flowId, FlowState.COMPENSATING, end, why, tx.now())) {
            return false;
        }
        events.flowMoved(row.view().kind(), end.sql());
        if (row.onFailure() != null) {
            tx.enqueue(row.onFailure().toNewJob().withUniqueKey("flow:" + flowId + ":failed" + round(tx, flowId))
                    .dueSince(row.view().createdAt()));
        }
        return true;
    }
}
