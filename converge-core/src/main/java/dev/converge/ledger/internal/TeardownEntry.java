package dev.converge.ledger.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.JobContext;
import dev.converge.store.TransactionGuard;
import java.time.Duration;
import java.util.Optional;

/**
 * Tears down one ledger entry, safely twice or concurrently: confirmed -> deleting -> deleted,
 * "not found" at the leaf counting as deleted (R2). An entry whose create may still be in flight
 * (its owner alive) is waited for, never raced; one whose owner died is taken over first, so the
 * old owner can no longer confirm it, then resolved by looking at the leaf.
 */
final class TeardownEntry {
    static final Duration WAIT_FOR_OWNER = Duration.ofMillis(500);

    private final LedgerOps ops;

    TeardownEntry(LedgerOps ops) {
        this.ops = ops;
    }

    /** Returns false if it must wait (the job was asked to come back later); true when the entry is settled. */
    boolean teardown(JobContext ctx, long entryId) {
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

    private boolean delete(JobContext ctx, LedgerEntry e) {
        ResourceType type = ops.types.get(e.kind());
        String tag = LedgerTags.tagFor(e.subject());
        LeafResource target;
        if (e.leafId() != null) {
            target = e.toResource(tag);
        } else if (type.supportsLookup()) {
            ctx.checkLease();
            TransactionGuard.assertNoTransaction("lookup of " + type.kind());
            Optional<LeafResource> found = type.find(e.naturalKey());
            if (found.isEmpty()) {
                return finish(ctx, e, LedgerState.RELEASED, "never created at the leaf");
            }
            if (!tag.equals(found.get().tag())) {
                return finish(ctx, e, LedgerState.RELEASED, "exists at the leaf but is not ours; left alone");
            }
            target = found.get();
        } else {
            String why = "could not verify whether it exists: " + e.kind() + " has no lookup";
            if (e.flowId() != null) {
                ops.flows.flagAttention(e.flowId(), e.kind() + " '" + e.naturalKey() + "': " + why);
            }
            return finish(ctx, e, LedgerState.RELEASED, why);
        }
        ctx.checkLease();
        TransactionGuard.assertNoTransaction("leaf " + type.kind());
        type.delete(target);
        ops.crash(ctx, CrashPoint.INSIDE_TEARDOWN);
        return finish(ctx, e, LedgerState.DELETED, null);
    }

    private boolean finish(JobContext ctx, LedgerEntry e, LedgerState to, String why) {
        if (!ops.db(c -> ops.store.finishDeleting(c, e.id(), to, why, ctx.lease(), ops.now()))) {
            throw LedgerOps.lost(ctx, "recording the teardown of " + e.kind() + " '" + e.naturalKey() + "'");
        }
        return true;
    }
}
