package dev.converge.ledger.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.flow.internal.FlowService;
import dev.converge.lease.LeaseLost;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceConflict;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Delivery;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.store.SqlWork;
import dev.converge.store.TransactionGuard;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;

/** What the ledger's algorithms share: the store, the runtime, and small fenced steps. */
final class LedgerOps {
    final EngineRuntime rt;
    final LedgerStore store;
    final FlowService flows;
    final ResourceTypes types;
    final dev.converge.ledger.ResourceTags tags;

    /** A leaf's answer to record: the entry, the resource it names, and the delivery that owns the entry. */
    record Confirm(long id, String leafId, Map<String, Object> data, dev.converge.lease.JobLease by, Instant now) {
    }

    /** Batches in flight at once of each group-committed write: while one commits, the next gathers. */
    private static final int LEADERS = 2;

    private final GroupCommit<Confirm, Optional<LedgerEntry>> confirms;

    /** A claim of a fresh key by a step of a flow, with the compensation that tears it down. */
    record ClaimInFlow(String kind, String key, long flowId, Long batchId, String subject, RepetitionSafety safety,
            Map<String, Object> params, LedgerStore.CompensationOf compensation, dev.converge.lease.JobLease by,
            Instant now) {
    }

    private final GroupCommit<ClaimInFlow, LedgerStore.FlowClaim> claims;

    LedgerOps(EngineRuntime rt, LedgerStore store, FlowService flows, ResourceTypes types, dev.converge.ledger.ResourceTags tags) {
        this.rt = rt;
        this.tags = tags;
        this.store = store;
        this.flows = flows;
        this.types = types;
        this.confirms = GroupCommit.of(rt.store(), LEADERS, Comparator.comparingLong(Confirm::id),
                (c, x) -> store.confirmReturning(c, x.id(), x.leafId(), x.data(), x.by(), x.now()));
        this.claims = GroupCommit.of(rt.store(), LEADERS, Comparator.comparingLong(ClaimInFlow::flowId)
                .thenComparing(ClaimInFlow::kind).thenComparing(ClaimInFlow::key),
                (c, x) -> store.insertClaimInFlow(c, x.kind(), x.key(), x.flowId(), x.batchId(), x.subject(),
                        x.safety(), x.params(), x.compensation(), x.by(), x.now()));
    }

    /**
     * The claim of a fresh key by a step of a flow, in one statement ({@link LedgerStore#insertClaimInFlow}),
     * committed before the create is sent (R9). Claims made on several handler threads at once are committed
     * together ({@link GroupCommit}); each returns once its own is durable.
     */
    LedgerStore.FlowClaim claimInFlow(ClaimInFlow claim) {
        return claims.write(claim);
    }

    /**
     * Records the leaf's answer for an entry this delivery owns (R5: the moment it arrives), returning the
     * entry as written, or empty if the delivery no longer owns it. Answers arriving on several handler
     * threads at once are committed together ({@link GroupCommit}); each returns once its own is durable.
     */
    Optional<LedgerEntry> confirm(Delivery ctx, long id, LeafResource answer) {
        return confirms.write(new Confirm(id, answer.leafId(), answer.data(), ctx.lease(), now()));
    }

    Instant now() {
        return rt.store().clock().sqlNow();
    }

    <T> T db(SqlWork<T> work) {
        return rt.store().withConnection(work);
    }

    <T> T tx(SqlWork<T> work) {
        return rt.store().inTransaction(work);
    }

    Optional<LedgerEntry> byKey(String kind, String key) {
        return db(c -> store.byKey(c, kind, key));
    }

    Optional<LedgerEntry> byId(long id) {
        return db(c -> store.byId(c, id));
    }

    boolean ownerAlive(LedgerEntry e) {
        return db(c -> store.ownerAlive(c, e, now()));
    }

    static boolean ownedBy(LedgerEntry e, Delivery ctx) {
        return e.ownerJobId() != null && e.ownerJobId() == ctx.jobId() && e.ownerEpoch() != null
                && e.ownerEpoch() == ctx.lease().epoch();
    }

    /**
     * The idempotency key of one generation of an entry: the same for every delivery that takes the
     * entry over (a takeover changes the owner, never the id or the generation), new only when a
     * deleted or released entry is claimed again for a new resource.
     */
    static String idempotencyKey(LedgerEntry e) {
        return "cv-" + e.id() + "-" + e.generation();
    }

    /** Whether the parameters of a create are kept with its entry: only where resending it is safe and useful. */
    static boolean keepsCreateParams(ResourceType type) {
        return type.createSafety() == RepetitionSafety.IDEMPOTENT_BY_KEY;
    }

    /**
     * The parameters to resend this generation's create with, if its type honours idempotency keys
     * and they were kept at the claim (an entry claimed before they were kept has none).
     */
    Optional<Map<String, Object>> replayable(ResourceType type, LedgerEntry e) {
        if (!keepsCreateParams(type)) {
            return Optional.empty();
        }
        return db(c -> store.createParams(c, e));
    }

    /**
     * Resends the create of an entry this delivery owns, with the entry's own idempotency key and
     * the parameters kept at its claim: the leaf answers with the resource an earlier delivery made
     * (or makes it, if that delivery died before sending). A leaf call: never inside a transaction (R12).
     */
    LeafResource replayCreate(Delivery ctx, ResourceType type, LedgerEntry e, Map<String, Object> params) {
        ctx.checkLease();
        TransactionGuard.assertNoTransaction("resent create of " + type.kind());
        return ObservedLeaf.create(rt.events(), type, new CreateRequest(e.naturalKey(), tags.tagFor(e.subject()),
                idempotencyKey(e), params));
    }

    void crash(Delivery ctx, CrashPoint point) {
        rt.crashPlan().reached(point, ctx.lease());
    }

    /** A fenced write refused: this delivery no longer owns what it was writing. */
    static LeaseLost lost(Delivery ctx, String what) {
        return new LeaseLost(ctx.lease(), what + " was refused: this delivery no longer owns the entry");
    }

    static ResourceConflict conflict(LedgerEntry e, String why) {
        return new ResourceConflict(e.kind(), e.naturalKey(), why);
    }
}
