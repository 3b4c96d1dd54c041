package dev.converge.proof.bench;

import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceExists;
import dev.converge.ledger.ResourceType;
import dev.converge.token.TokenOperation;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A leaf service with no latency, in this process: one natural key holds one resource (a second
 * create for it is refused, as a unique constraint would), and every create and token use is
 * counted, so that a run can show it made each resource once and used each token once.
 */
final class BenchLeaf {
    private final String kind;
    private final ConcurrentMap<String, LeafResource> byKey = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Boolean> usedTokens = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final LongAdder creates = new LongAdder();
    private final LongAdder refusedRepeats = new LongAdder();
    private final LongAdder tokenUses = new LongAdder();

    BenchLeaf(String kind) {
        this.kind = kind;
    }

    /** The ledger's view of this leaf: idempotent by constraint, with a lookup by natural key. */
    ResourceType type() {
        return ResourceType.named(kind)
                .createdBy(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, this::createOnce)
                .findBy(key -> Optional.ofNullable(byKey.get(key)))
                .deletedBy(r -> byKey.remove(r.naturalKey()))
                .build();
    }

    private LeafResource createOnce(CreateRequest req) throws ResourceExists {
        LeafResource made = new LeafResource(kind + "-" + ids.incrementAndGet(), req.naturalKey(), req.tag(), Map.of());
        if (byKey.putIfAbsent(req.naturalKey(), made) != null) {
            refusedRepeats.increment();
            throw new ResourceExists(kind, req.naturalKey(), "a " + kind + " for this key exists");
        }
        creates.increment();
        return made;
    }

    /** What the unguarded steps do: create without asking anybody first. */
    void createDirectly(String naturalKey) {
        byKey.put(naturalKey, new LeafResource(kind + "-" + ids.incrementAndGet(), naturalKey, null, Map.of()));
        creates.increment();
    }

    /** A single-use permission spent at this leaf (a license seat, an email): unsafe to repeat by itself. */
    TokenOperation<String> activation() {
        return new TokenOperation<>() {
            @Override
            public String name() {
                return kind + ".activate";
            }

            @Override
            public String use(String token) {
                return activate(token);
            }
        };
    }

    String activate(String token) {
        usedTokens.merge(token, Boolean.TRUE, (a, b) -> {
            throw new IllegalStateException("token used twice: " + token.substring(0, Math.min(4, token.length())) + "…");
        });
        tokenUses.increment();
        return token;
    }

    long creates() {
        return creates.sum();
    }

    long held() {
        return byKey.size();
    }

    long refusedRepeats() {
        return refusedRepeats.sum();
    }

    long tokenUses() {
        return tokenUses.sum();
    }

    void clear() {
        byKey.clear();
        usedTokens.clear();
        creates.reset();
        refusedRepeats.reset();
        tokenUses.reset();
    }
}
