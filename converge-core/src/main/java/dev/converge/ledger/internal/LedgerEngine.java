package dev.converge.ledger.internal;

import dev.converge.store.internal.Dialects;
import dev.converge.batch.internal.JobSpec;
import dev.converge.flow.FlowView;
import dev.converge.flow.internal.FlowService;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.ClaimHeld;
import dev.converge.ledger.LeafCall;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.OutcomeUnknown;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Job;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.Delivery;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.store.TransactionGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/** The engine's {@link dev.converge.ledger.Ledger}, and the machinery a step's {@link DeliveryLedger} runs on. */
public final class LedgerEngine implements dev.converge.ledger.Ledger {
    /** Compensation of one entry of a failed flow: tear it down. */
    public record EntryRef(long entryId) {
    }

    /**
     * How long a delivery that ended by throwing {@code e} waits behind another live owner: the
     * wait of the {@link ClaimHeld} it threw (directly or as a cause), or null when it failed.
     */
    public static Duration heldFor(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ClaimHeld held) {
                return held.retryAfter();
            }
        }
        return null;
    }

    public static JobType<EntryRef> teardownType(String queue) {
        return JobType.of("converge.ledger.teardown-entry", EntryRef.class).withQueue(queue)
                .withRetry(RetryPolicy.attempts(20).backoff(Duration.ofMillis(200)).cappedAt(Duration.ofSeconds(30)));
    }

    public static JobType<EntryRef> resolveType(String queue) {
        return JobType.of("converge.ledger.resolve-entry", EntryRef.class).withQueue(queue)
                .withRetry(RetryPolicy.attempts(10).backoff(Duration.ofSeconds(1)).cappedAt(Duration.ofMinutes(1)));
    }

    static final int REAP_PAGE = 200;
    static final int REAP_PAGES_PER_PASS = 10;

    private final LedgerOps ops;
    /**
     * The subjects of flows whose steps ensured resources here lately. A flow's subject never changes and
     * its id is never reused, so each flow's steps read it once per node instead of once per ensure().
     */
    private final Map<Long, String> flowSubjects = Collections.synchronizedMap(
            new LinkedHashMap<>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
                    return size() > FLOW_SUBJECTS_KEPT;
                }
            });
    private static final int FLOW_SUBJECTS_KEPT = 10_000;
    private final AtomicLong reapCursor = new AtomicLong();
    private final EnsureResource ensure;
    private final TeardownEntry teardown;
    private final ResolveEntry resolve;
    private final JobType<EntryRef> resolveType;
    private final Function<Job<?>, Long> enqueue;

    /**
     * For the default installation, without the engine's encoding of jobs: a claim in a flow registers its
     * compensation through the flow, in a transaction of several statements.
     */
    public LedgerEngine(EngineRuntime rt, FlowService flows, ResourceTypes types, String systemQueue,
            Function<Job<?>, Long> enqueue) {
        this(rt, flows, types, systemQueue, enqueue, dev.converge.ledger.ResourceTags.defaults(), null);
    }

    /**
     * {@code encoder}: how the engine stores a job, as the flows store their compensations; with it, a claim
     * in a flow writes its compensation in the same statement where the database allows (null: it does not).
     */
    public LedgerEngine(EngineRuntime rt, FlowService flows, ResourceTypes types, String systemQueue,
            Function<Job<?>, Long> enqueue, dev.converge.ledger.ResourceTags tags, Function<Job<?>, JobSpec> encoder) {
        this.ops = new LedgerOps(rt, new LedgerStore(Dialects.forUrl(rt.store().config().url(), rt.store().config().schema())), flows, types, tags);
        JobType<EntryRef> teardownType = teardownType(systemQueue);
        this.ensure = new EnsureResource(ops, id -> Job.of(teardownType, new EntryRef(id)), encoder);
        this.teardown = new TeardownEntry(ops);
        this.resolve = new ResolveEntry(ops, teardown);
        this.resolveType = resolveType(systemQueue);
        this.enqueue = enqueue;
    }

    public FlowService flows() {
        return ops.flows;
    }

    /** The handler of the teardown-entry compensation. */
    public void onTeardown(EntryRef ref, Delivery ctx) {
        teardown.teardown(ctx, ref.entryId());
    }

    /** The handler of the reaper's resolve-entry job. */
    public void onResolve(EntryRef ref, Delivery ctx) {
        resolve.resolve(ctx, ref.entryId());
    }

    public LedgerEntry ensure(Delivery ctx, ResourceType type, String key, String subject, Map<String, Object> params) {
        if (key == null || key.isBlank() || key.length() > 500) {
            throw new IllegalArgumentException("natural key must be 1-500 characters");
        }
        if (!ops.types.knows(type.kind())) {
            // teardown and the reaper find a type by its kind on the engine: what they cannot find, they cannot undo
            throw new NonRetryableException("resource type '" + type.kind() + "' is not registered on this engine: add "
                    + ".resource(type) to the builder (a ResourceType bean on Spring), so that teardown and the reaper "
                    + "can act on what ensure creates");
        }
        String owner = subject != null ? subject : ctx.flowId().flatMap(this::flowSubject)
                .orElseThrow(() -> new NonRetryableException("job " + ctx.jobId() + " is not part of a flow: name the "
                        + "subject that owns the " + type.kind() + ", ctx.ledger().ensure(type, naturalKey, subject, params)"));
        dev.converge.queue.internal.EngineObserver.Activity a = ops.rt.events().ensure(type.kind(),
                type.createSafety().sql());
        String[] outcome = new String[1];
        LedgerEntry e;
        try {
            e = ensure.ensure(ctx, type, key, owner, params, outcome);
        } catch (RuntimeException | Error x) {
            a.end(ObservedLeaf.outcomeOf(x), x);
            throw x;
        }
        a.end(outcome[0] == null ? "existing" : outcome[0], null);
        return e;
    }

    private Optional<String> flowSubject(long flowId) {
        String known = flowSubjects.get(flowId);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<String> read = ops.flows.get(flowId).map(FlowView::subject);
        read.ifPresent(s -> flowSubjects.put(flowId, s));
        return read;
    }

    public <T> T call(Delivery ctx, LeafCall<T> call) {
        RepetitionSafety safety = call.safety();
        if (safety == RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT || safety == RepetitionSafety.IDEMPOTENT_BY_TOKEN) {
            throw new IllegalArgumentException(call.name() + " is " + safety.sql()
                    + ": create it with ensure(), or spend a token with the token pool");
        }
        TransactionGuard.assertNoTransaction("leaf call " + call.name());
        if (ctx.cancelled()) {
            throw new JobCancelledException("cancelled before calling " + call.name() + " (R7)");
        }
        ctx.checkLease();
        try {
            return ObservedLeaf.call(ops.rt.events(), call.name(), "call", safety,
                    () -> call.call("cv-job-" + ctx.jobId() + "-" + call.name()), r -> "ok");
        } catch (AmbiguousOutcome a) {
            if (safety.retriesAfterAmbiguity()) {
                throw a;
            }
            String msg = call.name() + " is unsafe to repeat and ended without a known outcome (" + a.getMessage()
                    + "); not retried: a person must check";
            ctx.flowId().ifPresent(f -> ops.flows.flagAttention(f, msg));
            throw new OutcomeUnknown(msg, a);
        } catch (LeafRejected r) {
            if (r.isTransient()) {
                throw r;
            }
            throw new NonRetryableException(r.getMessage(), r);
        }
    }

    public boolean teardownFlow(Delivery ctx, long flowId) {
        return teardownAll(ctx, ops.db(c -> ops.store.byFlow(c, flowId)));
    }

    public boolean teardownSubject(Delivery ctx, String subject) {
        return teardownAll(ctx, ops.db(c -> ops.store.bySubject(c, subject)));
    }

    private boolean teardownAll(Delivery ctx, List<LedgerEntry> entries) {
        List<LedgerEntry> newestFirst = new ArrayList<>(entries);
        Collections.reverse(newestFirst);
        for (LedgerEntry e : newestFirst) {
            if (!teardown.teardown(ctx, e.id())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean settleExists(long entryId, String leafId, String actor, String reason) {
        if (leafId == null) {
            throw new IllegalArgumentException("the leaf's id of the resource is required");
        }
        return settle(entryId, leafId, actor, reason);
    }

    @Override
    public boolean settleAbsent(long entryId, String actor, String reason) {
        return settle(entryId, null, actor, reason);
    }

    /** See {@link dev.converge.ledger.Ledger#settleExists}. */
    public boolean settle(long entryId, String leafId, String actor, String reason) {
        dev.converge.flow.ManualAction.validate(actor, reason);
        if (leafId != null && (leafId.isBlank() || leafId.length() > 500)) {
            throw new IllegalArgumentException("the leaf's id must be 1-500 characters");
        }
        LedgerEntry e = ops.byId(entryId).orElseThrow(() -> new java.util.NoSuchElementException("no ledger entry " + entryId));
        if (e.state() != LedgerState.CLAIMED && e.state() != LedgerState.UNCERTAIN) {
            return false;
        }
        String what = "ledger entry " + e.id() + " (" + e.kind() + " '" + e.naturalKey() + "') settled by a person: "
                + (leafId != null ? "it exists, leaf id " + leafId + "; adopted and confirmed" : "it does not exist; released")
                + ": " + reason;
        return ops.rt.store().inTransaction(c -> {
            if (!ops.store.settle(c, e, leafId, what, ops.now())) {
                return false;
            }
            if (e.flowId() != null) {
                ops.flows.recordAction(c, e.flowId(), actor, what);
            }
            return true;
        });
    }

    public List<LedgerEntry> entriesOfFlow(long flowId) {
        return ops.db(c -> ops.store.byFlow(c, flowId));
    }

    public List<LedgerEntry> entriesOfSubject(String subject) {
        return ops.db(c -> ops.store.bySubject(c, subject));
    }

    public Optional<LedgerEntry> entry(long entryId) {
        return ops.byId(entryId);
    }

    public Optional<LedgerEntry> entry(String kind, String key) {
        return ops.byKey(kind, key);
    }

    /**
     * Schedules the resolution of stale entries, a page at a time from where the last pass stopped:
     * entries nobody can resolve (no lookup) stay stale, and must not hide the ones behind them.
     */
    public int reap(Duration olderThan) {
        int n = 0;
        for (int page = 0; page < REAP_PAGES_PER_PASS; page++) {
            long after = reapCursor.get();
            List<LedgerEntry> stale = ops.db(c -> ops.store.stale(c, olderThan.toMillis(), after, REAP_PAGE, ops.now()));
            for (LedgerEntry e : stale) {
                enqueue.apply(Job.of(resolveType, new EntryRef(e.id())).uniqueKey("ledger:resolve:" + e.id() + ":"
                        + e.generation() + ":" + e.updatedAt().toEpochMilli()));
            }
            n += stale.size();
            if (!stale.isEmpty()) {
                ops.rt.events().reaped(stale.size());
            }
            if (stale.size() < REAP_PAGE) {
                reapCursor.set(0); // reached the end: the next pass starts over
                break;
            }
            reapCursor.set(stale.get(stale.size() - 1).id());
        }
        return n;
    }

    public dev.converge.ledger.ResourceTags tags() {
        return ops.tags;
    }

    public List<LeafResource> orphans(ResourceType type) {
        TransactionGuard.assertNoTransaction("inventory of " + type.kind());
        List<LeafResource> inventory = type.list();
        Set<String> leafIds = new HashSet<>();
        Set<String> pendingKeys = new HashSet<>();
        for (LedgerEntry e : ops.db(c -> ops.store.live(c, type.kind()))) {
            if (e.leafId() != null) {
                leafIds.add(e.leafId());
            } else {
                pendingKeys.add(e.naturalKey());
            }
        }
        List<LeafResource> out = new ArrayList<>();
        for (LeafResource r : inventory) {
            if (!leafIds.contains(r.leafId()) && !pendingKeys.contains(r.naturalKey())) {
                out.add(r);
            }
        }
        return out;
    }
}
