package dev.converge.flow.internal;

import dev.converge.flow.Compensation;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowEvent;
import dev.converge.flow.FlowRun;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.flow.Flows;
import dev.converge.flow.ManualAction;

import dev.converge.ConvergeException;
import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.internal.LinkSpec;
import dev.converge.flow.internal.FlowStore.FlowRow;
import dev.converge.lease.LeaseLost;
import dev.converge.queue.Job;
import dev.converge.queue.Delivery;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.FinishContext;
import dev.converge.store.Store;
import dev.converge.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The engine's {@link Flows}, and what the engine itself does with flows (the watchdog, a step's compensation). */
public final class FlowService implements Flows {
    private static final Logger log = LoggerFactory.getLogger(Flows.class);
    private final EngineRuntime rt;
    private final FlowTracker tracker;
    private final Function<Job<?>, JobSpec> encoder;

    public FlowService(EngineRuntime rt, FlowTracker tracker, Function<Job<?>, JobSpec> encoder) {
        this.rt = rt;
        this.tracker = tracker;
        this.encoder = encoder;
    }

    /**
     * Starts the flow in its own transaction, or returns the run that already exists for its
     * kind and subject ({@code created == false}); never a second run.
     */
    public FlowRun start(Flow flow) {
        Prepared p = prepare(flow);
        dev.converge.queue.internal.EngineObserver.Activity a = rt.events().flowStart(flow.kind());
        FlowRun run;
        try {
            run = rt.inFinishTransaction(tx -> start(tx, flow, p));
        } catch (RuntimeException | Error e) {
            a.end("error", e);
            throw e;
        }
        a.end(run.created() ? "started" : "existing", null);
        return run;
    }

    /** Starts the flow inside the caller's transaction: it exists if and only if the caller commits. */
    public FlowRun start(Connection callerTransaction, Flow flow) {
        Prepared p = prepare(flow);
        FinishContext tx = rt.finishContext(callerTransaction);
        dev.converge.queue.internal.EngineObserver.Activity a = rt.events().flowStart(flow.kind());
        try {
            FlowRun run = start(tx, flow, p);
            a.end(run.created() ? "started" : "existing", null);
            tx.queuesToWake().forEach(rt.wakeup()::signal);
            return run;
        } catch (SQLException e) {
            a.end("error", e);
            throw new StoreException("flow start failed", e);
        } catch (RuntimeException | Error e) {
            a.end("error", e);
            throw e;
        }
    }

    private record Prepared(List<LinkSpec> steps, JobSpec onSuccess, JobSpec onFailure) {
    }

    private Prepared prepare(Flow flow) {
        if (flow.steps().isEmpty()) {
            throw new IllegalArgumentException("flow " + flow.kind() + " has no steps");
        }
        return new Prepared(LinkSpec.of(flow.steps(), encoder),
                flow.onSuccessJob() == null ? null : encoder.apply(flow.onSuccessJob()),
                flow.onFailureJob() == null ? null : encoder.apply(flow.onFailureJob()));
    }

    private FlowRun start(FinishContext tx, Flow flow, Prepared p) throws SQLException {
        Long deadlineMs = flow.deadlineOrNull() == null ? null : flow.deadlineOrNull().toMillis();
        Optional<Long> id = tracker.store().insert(tx.connection(), flow.kind(), flow.subject(), deadlineMs, p.onSuccess(),
                p.onFailure(), tx.now());
        if (id.isEmpty()) {
            FlowRow existing = tracker.store().bySubject(tx.connection(), flow.kind(), flow.subject())
                    .orElseThrow(() -> new ConvergeException("flow " + flow.kind() + "/" + flow.subject()
                            + " conflicted but cannot be found"));
            return new FlowRun(existing.view().id(), flow.kind(), flow.subject(), false);
        }
        tracker.begin(tx, id.get(), flow.kind(), p.steps());
        return new FlowRun(id.get(), flow.kind(), flow.subject(), true);
    }

    /**
     * Fails a running flow through the one terminal-failure path (compensate, then report).
     * Returns false if the flow was not running: someone else failed it first, or it ended.
     */
    public boolean fail(long flowId, String reason) {
        // failing locks the flow's batches, chain and row in the order the engine's completions do;
        // should the database still pick this one as a deadlock victim (or fail it on a serialization
        // conflict), run it again: it is one transaction, and failing a flow twice is a no-op
        return rt.inRetriedFinishTransaction(tx -> tracker.fail(tx, flowId, reason));
    }

    /**
     * Fails running flows whose deadline passed, and ends compensating flows whose compensation
     * ran past the deadline it was given (as long again as the flow had, at least the engine's
     * minimum) as needing attention;
     * returns how many this call ended either way. A flow that
     * stays locked by other writers through every retry is left for the next call and does not
     * hold back the others; any other database error ends the call.
     */
    public int failOverdue(int limit) {
        List<Long> ids = rt.store().withConnection(c -> tracker.store().overdue(c, limit, rt.store().clock().sqlNow()));
        int n = 0;
        for (long id : ids) {
            try {
                if (fail(id, "deadline passed")) {
                    rt.events().watchdog("deadline_failed", 1);
                    n++;
                }
            } catch (StoreException e) {
                if (!e.isRollbackVictim()) {
                    throw e;
                }
                log.warn("flow {} is past its deadline but stayed contended through {} attempts; trying again next round",
                        id, Store.VICTIM_ATTEMPTS);
            }
        }
        return n + endOverdueCompensations(limit);
    }

    /**
     * Ends compensating flows whose compensation ran past its deadline as needing attention;
     * returns how many. Contention is handled as in {@link #failOverdue}.
     */
    private int endOverdueCompensations(int limit) {
        List<Long> ids = rt.store().withConnection(c -> tracker.store().overdueCompensating(c, limit,
                rt.store().clock().sqlNow()));
        int n = 0;
        for (long id : ids) {
            try {
                boolean ended = rt.inRetriedFinishTransaction(tx -> tracker.compensationOverdue(tx, id));
                if (ended) {
                    log.warn("flow {}: compensation did not finish within its deadline; the flow needs attention", id);
                    rt.events().watchdog("compensation_overdue", 1);
                    n++;
                }
            } catch (StoreException e) {
                if (!e.isRollbackVictim()) {
                    throw e;
                }
                log.warn("flow {} is compensating past its deadline but stayed contended; trying again next round", id);
            }
        }
        return n;
    }

    /**
     * Registers what undoes a step of the running job's flow. On failure, compensations run
     * newest first, each until it succeeds or gives up. They must be idempotent.
     *
     * <p>A flow that fails while this step still runs waits for it before undoing anything, so a
     * compensation registered before or after the side effect runs after it. Refused with
     * {@link LeaseLost} when this delivery no longer holds its job, and with
     * {@link dev.converge.queue.JobCancelledException} when the flow has already ended: either
     * way the step must stop (register before acting, and nothing is left behind).
     */
    public void compensateWith(Delivery ctx, Job<?> compensation) {
        long flowId = ctx.flowId().orElseThrow(() -> new dev.converge.queue.NonRetryableException(
                "job " + ctx.jobId() + " is not part of a flow: nothing to register a compensation with"));
        JobSpec spec = encoder.apply(compensation);
        rt.store().inTransaction(c -> {
            tracker.admitCompensation(c, flowId);
            if (!rt.jobs().leaseValid(c, ctx.lease(), rt.store().clock().sqlNow())) {
                throw new LeaseLost(ctx.lease(), "registering a compensation: the job is no longer this delivery's");
            }
            tracker.store().addCompensation(c, flowId, spec, rt.store().clock().sqlNow());
            return null;
        });
    }

    /**
     * Registers a compensation in the caller's transaction (e.g. when the flow starts, or with
     * the claim of what it undoes). Refused, like the other form, when the flow has ended.
     */
    public void compensateWith(Connection c, long flowId, Job<?> compensation) {
        try {
            tracker.admitCompensation(c, flowId);
            tracker.store().addCompensation(c, flowId, encoder.apply(compensation), rt.store().clock().sqlNow());
        } catch (SQLException e) {
            throw new StoreException("registering a compensation failed", e);
        }
    }

    /**
     * A person's retry of a flow that needs attention, from where it stopped: it compensates
     * again (what gave up runs again; what is done stays done), then reports as any failed flow
     * does. Fenced by the flow's state: retried twice at once, it restarts once. The person and
     * the reason go into the flow's history.
     *
     * @return true if this call restarted the flow; false if it was not in {@code needs_attention}
     *         (it was retried already, or it is in another state)
     */
    public boolean retry(long flowId, String actor, String reason) {
        ManualAction.validate(actor, reason);
        return rt.inRetriedFinishTransaction(tx -> tracker.retry(tx, flowId, actor, reason));
    }

    /**
     * Records in the flow's history, in the caller's transaction, what a person did to something
     * the flow owns (a ledger entry settled by hand): the flow's state does not change.
     */
    public void recordAction(Connection c, long flowId, String actor, String what) {
        try {
            FlowState state = tracker.store().lockState(c, flowId);
            tracker.store().addEvent(c, flowId, state, state, what, actor, rt.store().clock().sqlNow());
        } catch (SQLException e) {
            throw new StoreException("recording a manual action failed", e);
        }
    }

    /** Marks a flow as needing a person when it ends (an unsafe operation's outcome is unknown). */
    public void flagAttention(long flowId, String reason) {
        rt.store().withConnection(c -> {
            tracker.store().flagAttention(c, flowId, reason, rt.store().clock().sqlNow());
            return null;
        });
    }

    public Optional<FlowView> get(long flowId) {
        return rt.store().withConnection(c -> tracker.store().get(c, flowId)).map(FlowRow::view);
    }

    public Optional<FlowView> find(String kind, String subject) {
        return rt.store().withConnection(c -> tracker.store().bySubject(c, kind, subject)).map(FlowRow::view);
    }

    public List<FlowEvent> history(long flowId) {
        return new ArrayList<>(rt.store().withConnection(c -> tracker.store().history(c, flowId)));
    }

    public List<Compensation> compensations(long flowId) {
        return rt.store().withConnection(c -> tracker.store().compensations(c, flowId));
    }
}
