package dev.converge.ledger.internal;

import dev.converge.batch.internal.JobSpec;
import dev.converge.crash.CrashPoint;
import dev.converge.flow.internal.FlowTracker;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.ClaimHeld;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.OutcomeUnknown;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceExists;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Job;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.Delivery;
import dev.converge.lease.JobLease;
import dev.converge.queue.NonRetryableException;
import dev.converge.ledger.internal.LedgerStore.CompensationOf;
import dev.converge.ledger.internal.LedgerStore.FlowClaim;
import dev.converge.store.TransactionGuard;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ensure()}: makes one external resource exist exactly once for its natural key, however
 * many times (and on however many nodes) the step runs. Claim a ledger row first, look at the
 * leaf before creating, create outside any transaction with an idempotency key derived from the
 * row, and record the leaf's answer the moment it arrives, fenced by this delivery's lease.
 */
final class EnsureResource {
    private static final Logger log = LoggerFactory.getLogger(EnsureResource.class);
    private static final int CLAIM_ROUNDS = 5;
    /** Ids the stored compensation is encoded with to find where the entry's id goes, then to check it. */
    private static final long PROBE_ID = Long.MAX_VALUE;
    private static final long CHECK_ID = 4_321_987L;

    private final LedgerOps ops;
    private final LongFunction<Job<?>> compensationFor;
    private final Function<Job<?>, JobSpec> encoder;
    /** The compensation as stored, around the entry's id (null until first needed; empty: it cannot be split so). */
    private volatile Optional<CompensationOf> storedAroundId;

    EnsureResource(LedgerOps ops, LongFunction<Job<?>> compensationFor, Function<Job<?>, JobSpec> encoder) {
        this.ops = ops;
        this.compensationFor = compensationFor;
        this.encoder = encoder;
    }

    LedgerEntry ensure(Delivery ctx, ResourceType type, String key, String subject, Map<String, Object> params) {
        return ensure(ctx, type, key, subject, params, new String[1]);
    }

    /** As above; {@code outcome[0]} says how it ended when it returns: existing, adopted or created. */
    LedgerEntry ensure(Delivery ctx, ResourceType type, String key, String subject, Map<String, Object> params,
            String[] outcome) {
        TransactionGuard.assertNoTransaction("leaf " + type.kind());
        String tag = ops.tags.tagFor(subject);
        Claimed got = new Claimed();
        LedgerEntry e = claim(ctx, type, key, subject, params == null ? Map.of() : params, got);
        if (e.state() == LedgerState.CONFIRMED) {
            outcome[0] = "existing";
            return e;
        }
        ops.crash(ctx, CrashPoint.AFTER_CLAIM);
        if (type.supportsLookup()) {
            ctx.checkLease();
            TransactionGuard.assertNoTransaction("lookup of " + type.kind());
            Optional<LeafResource> found = ObservedLeaf.find(ops.rt.events(), type, key);
            if (found.isPresent()) {
                outcome[0] = "adopted";
                return adopt(ctx, e, found.get(), tag);
            }
        } else if (e.state() == LedgerState.UNCERTAIN && !canResolve(type)) {
            throw unknown(ctx, e, "an earlier create ended without a known outcome and " + type.kind()
                    + " cannot be looked up", null);
        }
        return create(ctx, type, e, got, tag, params, outcome);
    }

    /**
     * What the claim learnt besides the entry: whether it began the entry's generation (nobody can have sent
     * its create yet), and whether the step was called off at that moment, if the claiming statement could
     * tell (null: ask before creating).
     */
    private static final class Claimed {
        boolean fresh;
        Boolean calledOff;
    }

    /**
     * Returns the entry confirmed for this subject, or one claimed by this delivery; {@code got} says how.
     */
    private LedgerEntry claim(Delivery ctx, ResourceType type, String key, String subject, Map<String, Object> params,
            Claimed got) {
        JobLease me = ctx.lease();
        Long flowId = ctx.flowId().orElse(null);
        // kept for a create that can be resent with the entry's key: teardown and the reaper learn
        // the resource of a delivery that died before recording the answer by resending it
        Map<String, Object> kept = LedgerOps.keepsCreateParams(type) ? params : null;
        for (int round = 0; round < CLAIM_ROUNDS; round++) {
            // The common case first: a key nobody holds yet is claimed without being read, and read only when
            // the claim found it taken. A new generation is claimed without asking about cancellation first: a
            // claim is no side effect outside, and the create asks right before it sends (R7); a cancelled step
            // releases its fresh claim there (nobody sent its create).
            ctx.checkLease();
            Fresh tried = claimFresh(type, key, flowId, ctx.batchId().orElse(null), subject, kept, me);
            if (tried.claimed().isPresent()) {
                got.fresh = true;
                got.calledOff = tried.calledOff();
                return tried.claimed().get();
            }
            // the claiming statement may have returned what holds the key; read it only when it did not
            Optional<LedgerEntry> cur = tried.held().isPresent() ? tried.held() : ops.byKey(type.kind(), key);
            if (cur.isEmpty()) {
                if (tried.refusal() != null) {
                    throw tried.refusal(); // the flow refused the compensation, and no entry holds the key
                }
                ctx.verifyLease(); // a refused claim may mean this delivery is stale: stop if so
                continue;
            }
            LedgerEntry e = cur.get();
            boolean same = subject.equals(e.subject());
            if (e.state() == LedgerState.CONFIRMED) {
                if (same) {
                    return e;
                }
                throw LedgerOps.conflict(e, "already exists for another subject");
            }
            if (!same && e.state().unresolved()) {
                throw LedgerOps.conflict(e, "is being created or deleted for another subject");
            }
            if (e.state() == LedgerState.DELETING) {
                if (ctx.cancelled()) {
                    throw new JobCancelledException("cancelled: " + type.kind() + " " + key + " is being torn down");
                }
                throw new ClaimHeld(type.kind() + " '" + key + "' is being deleted; trying again later");
            }
            // A lookup-and-adopt records what exists already, which the flow's compensation then undoes. An
            // unresolved entry is asked about first: an earlier delivery may have sent its create, so a
            // cancelled step must leave it as it is, not take it over.
            boolean unresolved = e.state().unresolved();
            if (unresolved && ctx.cancelled()) {
                throw new JobCancelledException("cancelled before creating " + type.kind() + " '" + key + "' (R7)");
            }
            got.fresh = !unresolved;
            ctx.checkLease();
            // the claiming write returns the row as it wrote it: the compensation needs its id, and the caller
            // gets it without a read inside the transaction or after the commit
            Optional<LedgerEntry> claimed;
            if (e.state() == LedgerState.DELETED || e.state() == LedgerState.RELEASED) {
                claimed = ops.tx(c -> compensated(c, flowId, ops.store.reuse(c, e, flowId, subject, type.createSafety(),
                        kept, me, ops.now()), true));
            } else {
                if (LedgerOps.ownedBy(e, ctx)) {
                    return e;
                }
                if (ops.ownerAlive(e)) {
                    throw new ClaimHeld(type.kind() + " '" + key + "' is being created by job " + e.ownerJobId()
                            + "; trying again later");
                }
                claimed = ops.tx(c -> compensated(c, flowId, ops.store.takeOverReturning(c, e, flowId, me, ops.now()),
                        flowId != null && !flowId.equals(e.flowId())));
            }
            if (claimed.isPresent()) {
                return claimed.get();
            }
            ctx.verifyLease(); // a refused claim may mean this delivery is stale: stop if so
        }
        throw new ClaimHeld(type.kind() + " '" + key + "' is contended; trying again later");
    }

    /**
     * The claim of a key nobody holds yet: the entry written, or empty (the key is taken, or the delivery lost
     * its lease); {@code refusal} is set when the flow refused its compensation (it has ended), {@code calledOff}
     * when the claiming statement also read whether the step was called off.
     */
    private record Fresh(Optional<LedgerEntry> claimed, RuntimeException refusal, Boolean calledOff,
            Optional<LedgerEntry> held) {
        Fresh(Optional<LedgerEntry> claimed, RuntimeException refusal, Boolean calledOff) {
            this(claimed, refusal, calledOff, Optional.empty());
        }
    }

    /**
     * Inserts the entry for this delivery. Outside a flow that is all. In a flow the entry's teardown is
     * registered as the flow's compensation with it, under the flow row's shared lock: on PostgreSQL in one
     * statement, elsewhere in one transaction of several (where the flow's refusal rolls the insert back).
     */
    private Fresh claimFresh(ResourceType type, String key, Long flowId, Long batchId, String subject,
            Map<String, Object> kept, JobLease me) {
        if (flowId == null) {
            return new Fresh(ops.db(c -> ops.store.insertClaim(c, type.kind(), key, null, subject, type.createSafety(),
                    kept, me, ops.now())), null, null);
        }
        Optional<CompensationOf> stored = ops.store.claimsInFlowAtOnce() ? storedAroundId() : Optional.empty();
        if (stored.isEmpty()) {
            return new Fresh(ops.tx(c -> compensated(c, flowId, ops.store.insertClaim(c, type.kind(), key, flowId,
                    subject, type.createSafety(), kept, me, ops.now()), true)), null, null);
        }
        FlowClaim got = ops.claimInFlow(new LedgerOps.ClaimInFlow(type.kind(), key, flowId, batchId, subject,
                type.createSafety(), kept, stored.get(), me, ops.now()));
        if (got.claimed().isPresent()) {
            return new Fresh(got.claimed(), null, got.calledOff());
        }
        if (got.flowState() == null) {
            return new Fresh(Optional.empty(), new IllegalStateException("flow " + flowId + " does not exist"), null,
                    got.held());
        }
        return new Fresh(Optional.empty(), FlowTracker.ACCEPTS_COMPENSATIONS.contains(got.flowState()) ? null
                : FlowTracker.ended(flowId, got.flowState()), null, got.held());
    }

    /**
     * Inside the claim's transaction: the row just claimed (if the claim applied), with its teardown registered
     * as the flow's compensation when {@code compensate} (a new claim, or one taken over into another flow).
     */
    private Optional<LedgerEntry> compensated(java.sql.Connection c, Long flowId, Optional<LedgerEntry> claimed,
            boolean compensate) {
        if (claimed.isPresent() && compensate && flowId != null) {
            ops.flows.compensateWith(c, flowId, compensationFor.apply(claimed.get().id()));
        }
        return claimed;
    }

    /**
     * The entry's teardown as the flow stores it, split around the entry's id, so that the statement that
     * writes the entry writes its compensation too. Checked against another id; a payload that does not carry
     * the id once, as written, cannot be split so, and its claims keep the transaction.
     */
    private Optional<CompensationOf> storedAroundId() {
        Optional<CompensationOf> known = storedAroundId;
        if (known == null) {
            known = splitAroundId();
            storedAroundId = known;
        }
        return known;
    }

    private Optional<CompensationOf> splitAroundId() {
        if (encoder == null) {
            return Optional.empty();
        }
        JobSpec probe = encoder.apply(compensationFor.apply(PROBE_ID));
        String id = Long.toString(PROBE_ID);
        int at = probe.payload().indexOf(id);
        if (at >= 0 && at == probe.payload().lastIndexOf(id)) {
            CompensationOf split = new CompensationOf(probe.kind(), probe.payload().substring(0, at),
                    probe.payload().substring(at + id.length()));
            JobSpec check = encoder.apply(compensationFor.apply(CHECK_ID));
            if (check.kind().equals(split.kind())
                    && check.payload().equals(split.payloadBefore() + CHECK_ID + split.payloadAfter())) {
                return Optional.of(split);
            }
        }
        log.warn("the ledger's compensation ({}) does not carry the entry's id as written: claims in a flow "
                + "register it in a transaction of several statements", probe.kind());
        return Optional.empty();
    }

    private LedgerEntry adopt(Delivery ctx, LedgerEntry e, LeafResource found, String tag) {
        if (!tag.equals(found.tag())) {
            boolean released = ops.db(c -> ops.store.release(c, e.id(), "exists at the leaf without our tag (found tag: "
                    + found.tag() + ")", ctx.lease(), ops.now()));
            if (!released) {
                throw LedgerOps.lost(ctx, "releasing the claim");
            }
            throw LedgerOps.conflict(e, "exists at the leaf and is not ours (it does not carry our tag)");
        }
        ops.crash(ctx, CrashPoint.AFTER_LEAF_ANSWER);
        Optional<LedgerEntry> adopted = ops.confirm(ctx, e.id(), found);
        if (adopted.isEmpty()) {
            throw LedgerOps.lost(ctx, "adopting " + e.kind() + " '" + e.naturalKey() + "'");
        }
        log.info("{} '{}' adopted: found at the leaf with our tag (an earlier attempt created it)", e.kind(),
                e.naturalKey());
        ops.crash(ctx, CrashPoint.AFTER_LEDGER_WRITE);
        return adopted.get();
    }

    private LedgerEntry create(Delivery ctx, ResourceType type, LedgerEntry e, Claimed got, String tag,
            Map<String, Object> params, String[] outcome) {
        // R7: asked right before the create, unless the claim that began this generation just read it (a lookup at
        // the leaf may have run since; a cancellation that lands after the answer is the same race as one landing
        // during the create, and the compensation registered with the claim tears down what the create makes)
        if (got.calledOff != null ? got.calledOff : ctx.cancelled()) {
            if (got.fresh) {
                // this generation began with this delivery's claim: no create of it was ever sent
                ops.db(c -> ops.store.release(c, e.id(), "cancelled before create", ctx.lease(), ops.now()));
            }
            // else an earlier delivery may have sent it: the entry stays unresolved for the compensation's
            // teardown (or the reaper) to learn what exists, never released as if nothing did
            throw new JobCancelledException("cancelled before creating " + type.kind() + " '" + e.naturalKey() + "' (R7)");
        }
        ctx.checkLease();
        if (!canResolve(type)) {
            // Nothing can tell later whether this call reached the leaf: say so before sending it, so
            // that a delivery dying mid-call leaves an uncertain entry (never created twice), not a claim.
            if (!ops.db(c -> ops.store.markUncertain(c, e.id(), "create sent, no answer recorded", ctx.lease(),
                    ops.now()))) {
                throw LedgerOps.lost(ctx, "marking the create of " + type.kind() + " '" + e.naturalKey() + "' as sent");
            }
        }
        TransactionGuard.assertNoTransaction("leaf " + type.kind());
        String idempotencyKey = LedgerOps.idempotencyKey(e);
        LeafResource res;
        try {
            res = ObservedLeaf.create(ops.rt.events(), type, new CreateRequest(e.naturalKey(), tag, idempotencyKey, params));
        } catch (AmbiguousOutcome a) {
            if (!ops.db(c -> ops.store.markUncertain(c, e.id(), a.getMessage(), ctx.lease(), ops.now()))) {
                throw LedgerOps.lost(ctx, "recording an ambiguous outcome");
            }
            if (!type.createSafety().retriesAfterAmbiguity() || !canResolve(type)) {
                throw unknown(ctx, e, a.getMessage(), a);
            }
            throw a; // retried: the next attempt looks (or resends the same key) before it creates
        } catch (dev.converge.ledger.ResourceExists x) {
            outcome[0] = "adopted";
            return existsAtLeaf(ctx, type, e, tag, x);
        } catch (LeafRejected r) {
            ops.db(c -> ops.store.release(c, e.id(), r.getMessage(), ctx.lease(), ops.now()));
            if (r.isTransient()) {
                throw r;
            }
            throw new NonRetryableException(r.getMessage(), r);
        }
        ops.crash(ctx, CrashPoint.AFTER_LEAF_ANSWER);
        Optional<LedgerEntry> confirmed = ops.confirm(ctx, e.id(), res);
        if (confirmed.isEmpty()) {
            afterLostConfirm(type, e, res);
            throw LedgerOps.lost(ctx, "confirming " + type.kind() + " '" + e.naturalKey() + "'");
        }
        ops.crash(ctx, CrashPoint.AFTER_LEDGER_WRITE);
        outcome[0] = "created";
        return confirmed.get();
    }

    /** Whether an ambiguous create can be settled later: by a lookup, or by resending the same key. */
    private static boolean canResolve(ResourceType type) {
        return type.supportsLookup() || type.createSafety() == RepetitionSafety.IDEMPOTENT_BY_KEY;
    }

    private LedgerEntry existsAtLeaf(Delivery ctx, ResourceType type, LedgerEntry e, String tag, ResourceExists x) {
        if (!type.supportsLookup()) {
            ops.db(c -> ops.store.release(c, e.id(), x.getMessage(), ctx.lease(), ops.now()));
            throw LedgerOps.conflict(e, "exists at the leaf and cannot be looked up to tell whose it is");
        }
        TransactionGuard.assertNoTransaction("lookup of " + type.kind());
        Optional<LeafResource> found = ObservedLeaf.find(ops.rt.events(), type, e.naturalKey());
        if (found.isEmpty()) {
            // said "exists" but cannot be found: it is being created or deleted right now; look again later.
            // Not a held claim (nobody of ours holds it): an ordinary retry, bounded by the job's attempts
            throw new dev.converge.ConvergeException(type.kind() + " '" + e.naturalKey()
                    + "' exists at the leaf but was not found; retrying");
        }
        return adopt(ctx, e, found.get(), tag);
    }

    /**
     * We created a resource but lost ownership of its entry before recording it (our lease moved
     * on: a paused worker woke up, a slow call outlived the lease). Deleting it could pull it from
     * under the entry's new owner, who finds it by lookup (or resends the same idempotency key) and
     * adopts it, since it carries our tag. Only when this generation of the entry is over (torn
     * down or released) will nobody adopt it: then it is provably an orphan and we delete it.
     * Whatever slips through, the reconciler reports.
     */
    private void afterLostConfirm(ResourceType type, LedgerEntry e, LeafResource res) {
        // The lease loss that made this delivery stale also interrupts its thread (once, whenever the heartbeat
        // learns of it): that interrupt is about the job, not this cleanup, which it would otherwise cut short on
        // its way out and leave the resource behind. Held back here, and given back to the thread after.
        boolean interrupted = Thread.interrupted();
        try {
            Optional<LedgerEntry> now = ops.byId(e.id());
            boolean over = now.isPresent() && now.get().generation() == e.generation()
                    && (now.get().state() == LedgerState.DELETED || now.get().state() == LedgerState.RELEASED);
            if (!over) {
                log.warn("{} '{}' (leaf id {}) was created by a delivery that lost its lease before recording it; "
                        + "left for the entry's current owner to adopt", type.kind(), res.naturalKey(), res.leafId());
                return;
            }
            for (int attempt = 1; ; attempt++) {
                try {
                    ObservedLeaf.delete(ops.rt.events(), type, res);
                    log.warn("{} '{}' (leaf id {}) was created by a stale delivery after its entry was settled; deleted it",
                            type.kind(), res.naturalKey(), res.leafId());
                    return;
                } catch (RuntimeException ex) {
                    if (Thread.interrupted()) {
                        interrupted = true;
                        if (attempt == 1) {
                            continue; // the interrupt came in the middle of the call: once more, uninterrupted
                        }
                    }
                    log.error("ORPHAN: {} '{}' (leaf id {}) was created by a stale delivery and could not be deleted: {}",
                            type.kind(), res.naturalKey(), res.leafId(), ex.getMessage());
                    return;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private OutcomeUnknown unknown(Delivery ctx, LedgerEntry e, String why, Throwable cause) {
        String msg = e.kind() + " '" + e.naturalKey() + "': the create is unsafe to repeat and its outcome is unknown ("
                + why + "); not retried: a person must check";
        ctx.flowId().ifPresent(f -> ops.flows.flagAttention(f, msg));
        return new OutcomeUnknown(msg, cause);
    }
}
