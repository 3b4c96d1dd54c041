package dev.converge.ledger.internal;

import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.ResourceExists;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Delivery;
import dev.converge.store.TransactionGuard;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reaper's work on one stale entry (claimed or uncertain, its owner gone for good): take it
 * over, then let the leaf decide. Found with our tag: confirm it, or tear it down if its flow
 * failed. Absent: release the claim. A type without lookup whose create honours idempotency keys
 * is asked by resending the create with the entry's own key: the leaf answers with what the dead
 * owner made (or makes it now), and it is confirmed. A stale teardown is finished.
 */
final class ResolveEntry {
    private static final Logger log = LoggerFactory.getLogger(ResolveEntry.class);

    private final LedgerOps ops;
    private final TeardownEntry teardown;

    ResolveEntry(LedgerOps ops, TeardownEntry teardown) {
        this.ops = ops;
        this.teardown = teardown;
    }

    void resolve(Delivery ctx, long entryId) {
        // refused before the entry is taken over: resolving it means asking the leaf (R12)
        TransactionGuard.assertNoTransaction("resolve of ledger entry " + entryId);
        Optional<LedgerEntry> cur = ops.byId(entryId);
        if (cur.isEmpty() || !cur.get().state().unresolved() || ops.ownerAlive(cur.get())) {
            return;
        }
        LedgerEntry e = cur.get();
        if (e.state() == LedgerState.DELETING || flowGaveUp(e)) {
            if (teardown.teardown(ctx, entryId)) {
                ops.rt.events().resolved(e.kind(), "torn_down");
            }
            return;
        }
        ResourceType type = ops.types.get(e.kind());
        if (!type.supportsLookup()) {
            Optional<Map<String, Object>> params = ops.replayable(type, e);
            if (params.isPresent()) {
                replay(ctx, type, e, params.get());
                return;
            }
            log.warn("{} '{}' is {} and cannot be resolved without a lookup at the leaf; left for a person",
                    e.kind(), e.naturalKey(), e.state().sql());
            ops.rt.events().resolved(e.kind(), "left");
            return;
        }
        if (!ops.db(c -> ops.store.takeOver(c, e, null, ctx.lease(), ops.now()))) {
            return; // someone else moved it meanwhile
        }
        TransactionGuard.assertNoTransaction("lookup of " + type.kind());
        Optional<LeafResource> found = ObservedLeaf.find(ops.rt.events(), type, e.naturalKey());
        String tag = ops.tags.tagFor(e.subject());
        boolean ok;
        if (found.isPresent() && tag.equals(found.get().tag())) {
            ok = ops.db(c -> ops.store.confirm(c, e.id(), found.get().leafId(), found.get().data(), ctx.lease(), ops.now()));
            log.info("reaper: {} '{}' found at the leaf with our tag; confirmed", e.kind(), e.naturalKey());
        } else {
            String why = found.isPresent() ? "exists at the leaf but is not ours" : "never created at the leaf";
            ok = ops.db(c -> ops.store.release(c, e.id(), "reaper: " + why, ctx.lease(), ops.now()));
            log.info("reaper: {} '{}' released: {}", e.kind(), e.naturalKey(), why);
        }
        if (!ok) {
            throw LedgerOps.lost(ctx, "resolving a stale entry");
        }
        ops.rt.events().resolved(e.kind(), found.isPresent() && tag.equals(found.get().tag()) ? "confirmed" : "released");
    }

    private void replay(Delivery ctx, ResourceType type, LedgerEntry e, Map<String, Object> params) {
        if (!ops.db(c -> ops.store.takeOver(c, e, null, ctx.lease(), ops.now()))) {
            return; // someone else moved it meanwhile
        }
        LedgerEntry mine = ops.byId(e.id()).orElseThrow();
        LeafResource made;
        try {
            made = ops.replayCreate(ctx, type, mine, params);
        } catch (ResourceExists | LeafRejected r) {
            if (r instanceof LeafRejected lr && lr.isTransient()) {
                throw lr;
            }
            log.warn("{} '{}' is {}: resending its create with the same key was refused ({}) and it cannot be looked "
                    + "up; left for a person", e.kind(), e.naturalKey(), e.state().sql(), r.getMessage());
            ops.rt.events().resolved(e.kind(), "left");
            return;
        }
        // an ambiguous answer propagates: the resolve is retried, or the next reaper pass resends the same key
        if (!ops.db(c -> ops.store.confirm(c, e.id(), made.leafId(), made.data(), ctx.lease(), ops.now()))) {
            throw LedgerOps.lost(ctx, "confirming the resent create of " + e.kind() + " '" + e.naturalKey() + "'");
        }
        ops.rt.events().resolved(e.kind(), "resent");
        log.info("reaper: {} '{}' resent with its idempotency key; the leaf answered with {}; confirmed", e.kind(),
                e.naturalKey(), made.leafId());
    }

    private boolean flowGaveUp(LedgerEntry e) {
        if (e.flowId() == null) {
            return false;
        }
        Optional<FlowView> f = ops.flows.get(e.flowId());
        return f.isPresent() && f.get().state() != FlowState.RUNNING && f.get().state() != FlowState.SUCCEEDED;
    }
}
