package dev.converge.ledger.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.ResourceExists;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Delivery;
import dev.converge.store.TransactionGuard;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Tears down one ledger entry, safely twice or concurrently: confirmed -> deleting -> deleted,
 * "not found" at the leaf counting as deleted (R2). An entry whose create may still be in flight
 * (its owner alive) is waited for, never raced; one whose owner died is taken over first, so the
 * old owner can no longer confirm it, then resolved by looking at the leaf, or, for a type without
 * lookup whose create honours idempotency keys, by resending the create with the entry's own key:
 * the leaf answers with what the dead owner made, which is recorded, then deleted.
 */
final class TeardownEntry {
    static final Duration WAIT_FOR_OWNER = Duration.ofMillis(500);

    private final LedgerOps ops;

    TeardownEntry(LedgerOps ops) {
        this.ops = ops;
    }

    /** Returns false if it must wait (the job was asked to come back later); true when the entry is settled. */
    boolean teardown(Delivery ctx, long entryId) {
        // refused before anything is written: a teardown may have to look at the leaf (R12)
        TransactionGuard.assertNoTransaction("teardown of ledger entry " + entryId);
        for (int round = 0; round < 5; round++) {
            Optional<LedgerEntry> cur = ops.byId(entryId);
            if (cur.isEmpty() || cur.get().state() == LedgerState.DELETED || cur.get().state() == LedgerState.RELEASED) {
                return true;
            }
            LedgerEntry e = cur.get();
            boolean mine = LedgerOps.ownedBy(e, ctx);
            if (!mine && e.state() != LedgerState.CONFIRMED && ops.ownerAlive(e)) {
                ctx.release(WAIT_FOR_OWNER); // a create (or another teardown) is in flight: never race it
                return false;
            }
            if (!(mine && e.state() == LedgerState.DELETING)) {
                ctx.checkLease();
                if (!ops.db(c -> ops.store.startDeleting(c, e, ctx.lease(), ops.now()))) {
                    continue; // it changed under us: look again
                }
            }
            return delete(ctx, ops.byId(entryId).orElseThrow());
        }
        ctx.release(WAIT_FOR_OWNER);
        return false;
    }

    private boolean delete(Delivery ctx, LedgerEntry e) {
        ResourceType type = ops.types.get(e.kind());
        String tag = ops.tags.tagFor(e.subject());
        LeafResource target;
        if (e.leafId() != null) {
            target = e.toResource(tag);
        } else if (type.supportsLookup()) {
            ctx.checkLease();
            TransactionGuard.assertNoTransaction("lookup of " + type.kind());
            Optional<LeafResource> found = ObservedLeaf.find(ops.rt.events(), type, e.naturalKey());
            if (found.isEmpty()) {
                return finish(ctx, e, LedgerState.RELEASED, "never created at the leaf", "not_created");
            }
            if (!tag.equals(found.get().tag())) {
                return finish(ctx, e, LedgerState.RELEASED, "exists at the leaf but is not ours; left alone", "not_ours");
            }
            target = found.get();
        } else {
            Optional<Map<String, Object>> params = ops.replayable(type, e);
            if (params.isEmpty()) {
                return unverifiable(ctx, e, e.kind() + " has no lookup");
            }
            LeafResource made;
            try {
                made = ops.replayCreate(ctx, type, e, params.get());
            } catch (ResourceExists | LeafRejected r) {
                if (r instanceof LeafRejected lr && lr.isTransient()) {
                    throw lr;
                }
                return unverifiable(ctx, e, "resending its create with the same key was refused (" + r.getMessage()
                        + ") and " + e.kind() + " has no lookup");
            }
            // an ambiguous answer propagates: the teardown is retried and resends the same key
            ops.crash(ctx, CrashPoint.AFTER_LEAF_ANSWER);
            if (!ops.db(c -> ops.store.recordFound(c, e.id(), made.leafId(), made.data(), ctx.lease(), ops.now()))) {
                throw LedgerOps.lost(ctx, "recording the resent create of " + e.kind() + " '" + e.naturalKey() + "'");
            }
            target = made;
        }
        ctx.checkLease();
        TransactionGuard.assertNoTransaction("leaf " + type.kind());
        ObservedLeaf.delete(ops.rt.events(), type, target);
        ops.crash(ctx, CrashPoint.INSIDE_TEARDOWN);
        return finish(ctx, e, LedgerState.DELETED, null, "deleted");
    }

    private boolean unverifiable(Delivery ctx, LedgerEntry e, String because) {
        String why = "could not verify whether it exists: " + because;
        if (e.flowId() != null) {
            ops.flows.flagAttention(e.flowId(), e.kind() + " '" + e.naturalKey() + "': " + why);
        }
        return finish(ctx, e, LedgerState.RELEASED, why, "unverifiable");
    }

    private boolean finish(Delivery ctx, LedgerEntry e, LedgerState to, String why, String outcome) {
        if (!ops.db(c -> ops.store.finishDeleting(c, e.id(), to, why, ctx.lease(), ops.now()))) {
            throw LedgerOps.lost(ctx, "recording the teardown of " + e.kind() + " '" + e.naturalKey() + "'");
        }
        ops.rt.events().tornDown(e.kind(), outcome);
        return true;
    }
}
