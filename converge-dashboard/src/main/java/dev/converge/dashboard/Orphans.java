package dev.converge.dashboard;

import dev.converge.ledger.LeafResource;
import dev.converge.ledger.Ledger;
import dev.converge.ledger.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the leaves hold that no ledger entry owns, from the last scan: never a crawl of every leaf
 * per request. A viewer who finds the scan older than its bound starts the next one in the
 * background (one at a time) and is answered the last; nobody looking costs the leaves nothing.
 * Resources tagged with this engine's installation are listed (they may be deleted from here);
 * the others are only counted: they are another installation's, or no one's we know.
 */
final class Orphans {
    private static final Logger log = LoggerFactory.getLogger(Orphans.class);

    private final Supplier<? extends Collection<ResourceType>> types;
    private final Ledger ledger;
    private final Duration every;
    private final AtomicBoolean scanning = new AtomicBoolean();
    private volatile Map<String, Object> last;
    private volatile Instant lastAt;

    Orphans(Supplier<? extends Collection<ResourceType>> types, Ledger ledger, Duration every) {
        this.types = types;
        this.ledger = ledger;
        this.every = every;
    }

    /** The last scan, starting the next in the background when it is older than its bound; before the first, {@code as_of} null. */
    Map<String, Object> report() {
        Instant at = lastAt;
        if (at == null || at.plus(every).isBefore(Instant.now())) {
            if (scanning.compareAndSet(false, true)) {
                Thread t = new Thread(() -> {
                    try {
                        scan();
                    } finally {
                        scanning.set(false);
                    }
                }, "converge-dashboard-orphans");
                t.setDaemon(true);
                t.start();
            }
        }
        Map<String, Object> r = last;
        if (r == null) {
            // not an error: the page says the first scan is under way
            Map<String, Object> none = new LinkedHashMap<>();
            none.put("items", List.of());
            none.put("other_count", 0);
            none.put("complete", false);
            none.put("leaves", List.of());
            none.put("as_of", null);
            return none;
        }
        return r;
    }

    /** What went wrong, in one short line: the exception's kind and the first line of its message. */
    static String cause(Throwable e) {
        String message = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("").strip();
        String line = e.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }

    /** Scans now, on the request's thread (the operator asked), and answers the result. */
    Map<String, Object> scanNow() {
        return scan();
    }

    private synchronized Map<String, Object> scan() {
        List<Map<String, Object>> items = new ArrayList<>();
        List<Map<String, Object>> leaves = new ArrayList<>();
        int others = 0;
        for (ResourceType type : types.get()) {
            Map<String, Object> leaf = new LinkedHashMap<>();
            leaf.put("kind", type.kind());
            List<LeafResource> found;
            try {
                found = ledger.orphans(type);
            } catch (RuntimeException e) {
                log.warn("orphans of {} could not be listed: {}", type.kind(), e.toString());
                leaf.put("available", false);
                leaf.put("detail", "The leaf could not be listed: " + cause(e) + ". The next scan tries again; "
                        + "until then its orphans are unknown, not none.");
                leaves.add(leaf);
                continue;
            }
            int mine = 0;
            for (LeafResource r : found) {
                Optional<String> subject = ledger.tags().subjectOf(r.tag());
                if (subject.isPresent()) {
                    Map<String, Object> o = new LinkedHashMap<>();
                    o.put("kind", type.kind());
                    o.put("leaf_id", r.leafId());
                    o.put("natural_key", r.naturalKey());
                    o.put("subject", subject.get());
                    items.add(o);
                    mine++;
                }
            }
            others += found.size() - mine;
            leaf.put("available", true);
            leaf.put("orphans", mine);
            leaf.put("other_count", found.size() - mine);
            leaves.add(leaf);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("items", List.copyOf(items));
        r.put("other_count", others);
        r.put("complete", leaves.stream().allMatch(l -> Boolean.TRUE.equals(l.get("available"))));
        r.put("leaves", List.copyOf(leaves));
        Instant now = Instant.now();
        r.put("as_of", now.toString());
        last = r;
        lastAt = now;
        return r;
    }

    /**
     * Deletes an orphan at its leaf after checking again against the leaf's inventory and the
     * ledger now, and only one tagged with this installation. Logged with the operator's id.
     */
    Map<String, Object> delete(String kind, String leafId, String operatorId) {
        ResourceType type = types.get().stream().filter(t -> t.kind().equals(kind)).findFirst()
                .orElseThrow(() -> new Problem(422, "kind is not a resource type of this dashboard."));
        List<LeafResource> found;
        try {
            found = ledger.orphans(type);
        } catch (RuntimeException e) {
            log.warn("orphans of {} could not be listed for a deletion: {}", kind, e.toString());
            throw new Problem(503, "The leaf could not be listed right now.");
        }
        LeafResource orphan = found.stream().filter(r -> leafId.equals(r.leafId())).findFirst()
                .orElseThrow(() -> new Problem(404, "No orphan " + kind + " " + leafId
                        + " now: a ledger entry owns it, or it is gone."));
        String subject = ledger.tags().subjectOf(orphan.tag()).orElseThrow(() -> new Problem(422,
                "leaf_id is not tagged with this installation; it is never deleted from here."));
        try {
            type.delete(orphan);
        } catch (RuntimeException e) {
            log.warn("deleting orphan {} {} failed: {}", kind, leafId, e.toString());
            throw new Problem(503, "The leaf did not delete it; try again.");
        }
        log.info("orphan {} {} (natural key {}, subject {}) deleted at the leaf by operator {}", kind, leafId,
                orphan.naturalKey(), subject, operatorId);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("deleted", true);
        out.put("kind", kind);
        out.put("leaf_id", leafId);
        out.put("natural_key", orphan.naturalKey());
        out.put("subject", subject);
        return out;
    }
}
