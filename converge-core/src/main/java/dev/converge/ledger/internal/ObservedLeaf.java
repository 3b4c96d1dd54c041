package dev.converge.ledger.internal;

import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.ClaimHeld;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.OutcomeUnknown;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceConflict;
import dev.converge.ledger.ResourceExists;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.internal.EngineObserver;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The ledger's calls to leaves, each reported to the engine's observers (a timer and a span per
 * call, with the call's repetition safety and outcome) around the very same call it would make
 * without them. Lookups are read-only and deletes naturally idempotent by contract (R2).
 */
final class ObservedLeaf {
    private ObservedLeaf() {
    }

    static LeafResource create(EngineObserver ev, ResourceType type, CreateRequest req) {
        return call(ev, type.kind(), "create", type.createSafety(), () -> type.create(req), r -> "ok");
    }

    static Optional<LeafResource> find(EngineObserver ev, ResourceType type, String naturalKey) {
        return call(ev, type.kind(), "find", RepetitionSafety.READ_ONLY, () -> type.find(naturalKey),
                r -> r.isPresent() ? "found" : "absent");
    }

    static void delete(EngineObserver ev, ResourceType type, LeafResource target) {
        call(ev, type.kind(), "delete", RepetitionSafety.NATURALLY_IDEMPOTENT, () -> {
            type.delete(target);
            return null;
        }, r -> "ok");
    }

    static <T> T call(EngineObserver ev, String type, String operation, RepetitionSafety safety, Supplier<T> body,
            java.util.function.Function<T, String> outcome) {
        EngineObserver.Activity a = ev.leafCall(type, operation, safety.sql());
        T result;
        try {
            result = body.get();
        } catch (RuntimeException | Error e) {
            a.end(outcomeOf(e), e);
            throw e;
        }
        a.end(outcome.apply(result), null);
        return result;
    }

    /** The outcome word of a leaf call (or an {@code ensure()}) that threw. */
    static String outcomeOf(Throwable e) {
        if (e instanceof AmbiguousOutcome) {
            return "ambiguous";
        }
        if (e instanceof ResourceExists) {
            return "exists";
        }
        if (e instanceof LeafRejected r) {
            return r.isTransient() ? "rejected_transient" : "rejected";
        }
        if (e instanceof ResourceConflict) {
            return "conflict";
        }
        if (e instanceof OutcomeUnknown) {
            return "uncertain";
        }
        if (e instanceof ClaimHeld) {
            return "held";
        }
        if (e instanceof JobCancelledException) {
            return "cancelled";
        }
        if (e instanceof dev.converge.lease.LeaseLost) {
            return "lease_lost";
        }
        if (e.getCause() instanceof LeafRejected r && !r.isTransient()) {
            return "rejected";
        }
        return "error";
    }
}
