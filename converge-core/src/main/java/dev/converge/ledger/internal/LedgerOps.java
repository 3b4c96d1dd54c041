package dev.converge.ledger.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.flow.Flows;
import dev.converge.lease.LeaseLost;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.ResourceConflict;
import dev.converge.ledger.ResourceTypes;
import dev.converge.queue.JobContext;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.store.SqlWork;
import java.time.Instant;
import java.util.Optional;

/** What the ledger's algorithms share: the store, the runtime, and small fenced steps. */
final class LedgerOps {
    final EngineRuntime rt;
    final LedgerStore store;
    final Flows flows;
    final ResourceTypes types;

    LedgerOps(EngineRuntime rt, LedgerStore store, Flows flows, ResourceTypes types) {
        this.rt = rt;
        this.store = store;
        this.flows = flows;
        this.types = types;
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

    static boolean ownedBy(LedgerEntry e, JobContext ctx) {
        return e.ownerJobId() != null && e.ownerJobId() == ctx.jobId() && e.ownerEpoch() != null
                && e.ownerEpoch() == ctx.lease().epoch();
    }

    void crash(JobContext ctx, CrashPoint point) {
        rt.crashPlan().reached(point, ctx.lease());
    }

    /** A fenced write refused: this delivery no longer owns what it was writing. */
    static LeaseLost lost(JobContext ctx, String what) {
        return new LeaseLost(ctx.lease(), what + " was refused: this delivery no longer owns the entry");
    }

    static ResourceConflict conflict(LedgerEntry e, String why) {
        return new ResourceConflict(e.kind(), e.naturalKey(), why);
    }
}
