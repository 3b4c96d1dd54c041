package dev.converge.ledger;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The side-effect ledger: the durable record of every external resource. Steps create resources
 * through {@code ctx.ledger()} ({@link StepLedger}); this engine-wide view, from
 * {@code engine.ledger()}, reads entries, settles what the machine could not decide, and finds
 * orphans.
 *
 * <pre>{@code
 * engine.ledger().entry("git-repo", "site-42").ifPresent(e -> System.out.println(e.leafId()));
 * }</pre>
 */
public interface Ledger {

    /**
     * A person settles an entry the machine could not decide (claimed or uncertain, its owner not
     * running): the resource exists at the leaf under {@code leafId}, so the entry is adopted and
     * confirmed (a later teardown deletes it like any other). Fenced by the entry's state,
     * generation and owner: of two settlements at once, one applies; a stale delivery of the old
     * owner can no longer confirm or release it. Recorded, with who and why, in the owning flow's
     * history.
     *
     * @return true if this call settled it; false if it was not unresolved, or its owner still runs
     */
    boolean settleExists(long entryId, String leafId, String actor, String reason);

    /** As {@link #settleExists}, when the resource does not exist at the leaf: the entry is released. */
    boolean settleAbsent(long entryId, String actor, String reason);

    /** An entry by id. */
    Optional<LedgerEntry> entry(long entryId);

    /** The entries of a flow, oldest first. */
    List<LedgerEntry> entriesOfFlow(long flowId);

    /** The entries owned by a subject, oldest first. */
    List<LedgerEntry> entriesOfSubject(String subject);

    /** The entry of a resource kind's natural key. */
    Optional<LedgerEntry> entry(String kind, String naturalKey);

    /** Schedules the resolution of unconfirmed entries older than the bound whose owner is gone; returns how many. */
    int reap(Duration olderThan);

    /** Resources the leaf holds of this type that no ledger entry owns. */
    List<LeafResource> orphans(ResourceType type);

    /** How this engine's installation tags its resources ({@link dev.converge.Converge.Builder#installation}). */
    ResourceTags tags();

    /** The tag a resource of this subject carries at its leaf, for this engine's installation. */
    default String tagFor(String subject) {
        return tags().tagFor(subject);
    }

    /**
     * The tag a resource of this subject carries for an engine of the default installation
     * ({@link ResourceTags#DEFAULT_INSTALLATION}); an engine with its own installation uses
     * {@link #tagFor(String)} on its ledger.
     */
    static String defaultTagFor(String subject) {
        return ResourceTags.defaults().tagFor(subject);
    }
}
