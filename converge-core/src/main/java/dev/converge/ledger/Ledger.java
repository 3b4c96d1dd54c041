package dev.converge.ledger;

import dev.converge.ledger.internal.LedgerEngine;
import dev.converge.queue.Delivery;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The side-effect ledger: the durable record of every external resource, and the only way steps
 * create them. Obtained from {@code engine.ledger()}.
 *
 * <pre>{@code
 * LedgerEntry repo = engine.ledger().ensure(ctx, gitRepos, "site-42", Map.of("private", true));
 * }</pre>
 */
public final class Ledger {
    private final LedgerEngine engine;

    Ledger(LedgerEngine engine) {
        this.engine = engine;
    }

    /**
     * Makes the resource exist exactly once for its natural key, owned by the job's flow subject,
     * and returns its confirmed entry. Safe to call any number of times from any number of
     * deliveries: a confirmed entry is returned without calling the leaf; otherwise the entry is
     * claimed, the leaf is looked at before anything is created, and the leaf's answer is recorded
     * the moment it arrives. Throws {@link ResourceConflict} when the key belongs to someone else.
     * For a type {@link RepetitionSafety#IDEMPOTENT_BY_KEY} the {@code params} are stored with the
     * entry (JSON), so that teardown and the reaper can resend the create with the entry's key:
     * they must serialize, and must carry no secret.
     */
    public LedgerEntry ensure(Delivery ctx, ResourceType type, String naturalKey, Map<String, Object> params) {
        return engine.ensure(ctx, type, naturalKey, null, params);
    }

    /** As {@link #ensure(Delivery, ResourceType, String, Map)}, for an explicit owning subject (jobs outside a flow). */
    public LedgerEntry ensure(Delivery ctx, ResourceType type, String naturalKey, String subject,
            Map<String, Object> params) {
        return engine.ensure(ctx, type, naturalKey, subject, params);
    }

    /** Makes one call that creates no resource, retried (or not) as its declared safety allows. */
    public <T> T call(Delivery ctx, LeafCall<T> call) {
        return engine.call(ctx, call);
    }

    /**
     * Tears down every resource of a flow, newest first. Returns false if it must wait for a create
     * still in flight (the job was asked to come back later); true when all are settled.
     */
    public boolean teardownFlow(Delivery ctx, long flowId) {
        return engine.teardownFlow(ctx, flowId);
    }

    /** Tears down every resource owned by a subject (all its flows), newest first. */
    public boolean teardownSubject(Delivery ctx, String subject) {
        return engine.teardownSubject(ctx, subject);
    }

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
    public boolean settleExists(long entryId, String leafId, String actor, String reason) {
        if (leafId == null) {
            throw new IllegalArgumentException("the leaf's id of the resource is required");
        }
        return engine.settle(entryId, leafId, actor, reason);
    }

    /** As {@link #settleExists}, when the resource does not exist at the leaf: the entry is released. */
    public boolean settleAbsent(long entryId, String actor, String reason) {
        return engine.settle(entryId, null, actor, reason);
    }

    public Optional<LedgerEntry> entry(long entryId) {
        return engine.entry(entryId);
    }

    public List<LedgerEntry> entriesOfFlow(long flowId) {
        return engine.entriesOfFlow(flowId);
    }

    public List<LedgerEntry> entriesOfSubject(String subject) {
        return engine.entriesOfSubject(subject);
    }

    public Optional<LedgerEntry> entry(String kind, String naturalKey) {
        return engine.entry(kind, naturalKey);
    }

    /** Schedules the resolution of unconfirmed entries older than the bound whose owner is gone; returns how many. */
    public int reap(Duration olderThan) {
        return engine.reap(olderThan);
    }

    /** Resources the leaf holds of this type that no ledger entry owns. */
    public List<LeafResource> orphans(ResourceType type) {
        return engine.orphans(type);
    }

    /** How this engine's installation tags its resources ({@link dev.converge.Converge.Builder#installation}). */
    public ResourceTags tags() {
        return engine.tags();
    }

    /** The tag a resource of this subject carries at its leaf, for this engine's installation. */
    public String tagFor(String subject) {
        return engine.tags().tagFor(subject);
    }

    /**
     * The tag a resource of this subject carries for an engine of the default installation
     * ({@link ResourceTags#DEFAULT_INSTALLATION}); an engine with its own installation uses
     * {@link #tagFor(String)} on its ledger.
     */
    public static String defaultTagFor(String subject) {
        return ResourceTags.defaults().tagFor(subject);
    }
}
