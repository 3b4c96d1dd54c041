package dev.converge.testkit.leaf;

import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceExists;
import dev.converge.ledger.ResourceType;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory leaf that counts what it holds: the ground truth a convergence check trusts.
 * Configurable as unique by natural key (a git host: a second create is refused as "exists") or
 * not (a license service: a second create makes a second resource), with or without lookup, and
 * honouring idempotency keys or not. Faults are queued per call.
 */
public final class CountingLeaf implements ResourceType {
    /** What the next create does instead of simply succeeding. */
    public enum Fault {
        /** Creates the resource, then the caller sees a timeout. */
        AMBIGUOUS_AFTER_CREATE,
        /** Creates nothing, and the caller sees a timeout. */
        AMBIGUOUS_BEFORE_CREATE,
        /** Creates nothing: a 503 the caller may retry. */
        REJECT_TRANSIENT,
        /** Creates nothing: a 400. */
        REJECT_PERMANENT
    }

    private final String kind;
    private final RepetitionSafety safety;
    private final boolean unique;
    private final boolean lookup;
    private final Map<String, LeafResource> byId = new LinkedHashMap<>();
    private final Map<String, String> idempotency = new LinkedHashMap<>();
    private final List<String> createLog = new ArrayList<>();
    private final Deque<Fault> faults = new ConcurrentLinkedDeque<>();
    private final AtomicLong ids = new AtomicLong();
    private int deletes;

    private CountingLeaf(String kind, RepetitionSafety safety, boolean unique, boolean lookup) {
        this.kind = kind;
        this.safety = safety;
        this.unique = unique;
        this.lookup = lookup;
    }

    /** Unique by natural key, with lookup: like a git host or a hosting service. */
    public static CountingLeaf uniqueByKey(String kind) {
        return new CountingLeaf(kind, RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, true, true);
    }

    /** No uniqueness, but honours idempotency keys and can be listed by key: like the license service. */
    public static CountingLeaf byIdempotencyKey(String kind) {
        return new CountingLeaf(kind, RepetitionSafety.IDEMPOTENT_BY_KEY, false, true);
    }

    /** No uniqueness, no idempotency key, no lookup: a create that is genuinely unsafe to repeat. */
    public static CountingLeaf unsafe(String kind) {
        return new CountingLeaf(kind, RepetitionSafety.UNSAFE, false, false);
    }

    /**
     * Any combination, for exploring shapes the named factories do not cover: the safety the type
     * declares, whether a second create of a live natural key is refused as "exists", and whether
     * it can look a resource up by natural key. Idempotency keys are honoured when the safety is
     * {@link RepetitionSafety#IDEMPOTENT_BY_KEY}.
     */
    public static CountingLeaf of(String kind, RepetitionSafety safety, boolean unique, boolean lookup) {
        return new CountingLeaf(kind, safety, unique, lookup);
    }

    public CountingLeaf failNext(Fault... next) {
        for (Fault f : next) {
            faults.add(f);
        }
        return this;
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public RepetitionSafety createSafety() {
        return safety;
    }

    @Override
    public boolean supportsLookup() {
        return lookup;
    }

    @Override
    public synchronized LeafResource create(CreateRequest r) {
        Fault fault = faults.poll();
        if (fault == Fault.AMBIGUOUS_BEFORE_CREATE) {
            throw new AmbiguousOutcome(kind, "timed out (nothing was created)");
        }
        if (fault == Fault.REJECT_TRANSIENT) {
            throw new LeafRejected(kind, "503 service unavailable", 503, true);
        }
        if (fault == Fault.REJECT_PERMANENT) {
            throw new LeafRejected(kind, "400 bad request", 400, false);
        }
        if (safety == RepetitionSafety.IDEMPOTENT_BY_KEY && r.idempotencyKey() != null
                && idempotency.containsKey(r.idempotencyKey())) {
            LeafResource earlier = byId.get(idempotency.get(r.idempotencyKey()));
            if (earlier != null) {
                return earlier;
            }
        }
        if (unique && findLive(r.naturalKey()).isPresent()) {
            throw new ResourceExists(kind, r.naturalKey(), "422 already exists");
        }
        String id = kind + "-" + ids.incrementAndGet();
        LeafResource res = new LeafResource(id, r.naturalKey(), r.tag(), Map.of("created", createLog.size() + 1));
        byId.put(id, res);
        createLog.add(r.naturalKey());
        if (r.idempotencyKey() != null) {
            idempotency.put(r.idempotencyKey(), id);
        }
        if (fault == Fault.AMBIGUOUS_AFTER_CREATE) {
            throw new AmbiguousOutcome(kind, "timed out (the create happened)");
        }
        return res;
    }

    @Override
    public synchronized Optional<LeafResource> find(String naturalKey) {
        if (!lookup) {
            throw new UnsupportedOperationException(kind + " has no lookup");
        }
        return findLive(naturalKey);
    }

    private Optional<LeafResource> findLive(String naturalKey) {
        return byId.values().stream().filter(x -> x.naturalKey().equals(naturalKey)).findFirst();
    }

    @Override
    public synchronized void delete(LeafResource resource) {
        if (byId.remove(resource.leafId()) != null) {
            deletes++;
        }
    }

    @Override
    public synchronized List<LeafResource> list() {
        return new ArrayList<>(byId.values());
    }

    /** Live resources per natural key. */
    public synchronized Map<String, Integer> holdings() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (LeafResource r : byId.values()) {
            out.merge(r.naturalKey(), 1, Integer::sum);
        }
        return out;
    }

    /** How many creates ever happened for this key (including resources since deleted). */
    public synchronized int createsOf(String naturalKey) {
        return (int) createLog.stream().filter(naturalKey::equals).count();
    }

    public synchronized int totalCreates() {
        return createLog.size();
    }

    public synchronized int deletes() {
        return deletes;
    }

    /** Puts a resource there that someone else made (it carries their tag, or none). */
    public synchronized LeafResource plant(String naturalKey, String foreignTag) {
        String id = kind + "-" + ids.incrementAndGet();
        LeafResource res = new LeafResource(id, naturalKey, foreignTag, Map.of());
        byId.put(id, res);
        return res;
    }
}
