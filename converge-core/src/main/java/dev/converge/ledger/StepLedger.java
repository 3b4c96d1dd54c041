package dev.converge.ledger;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ledger as a running step sees it: every call acts for the step's own delivery (its lease
 * fences each write, its flow owns what it creates), so the step never passes its context back.
 * Obtained from {@code ctx.ledger()}; the engine-wide ledger, for operators and settling, is
 * {@code engine.ledger()}.
 *
 * <pre>{@code
 * (order, ctx) -> {
 *     LedgerEntry charge = ctx.ledger().ensure(payments, "charge-" + order.id(), Map.of("cents", order.cents()));
 * }
 * }</pre>
 */
public interface StepLedger {

    /**
     * Makes the resource exist exactly once for its natural key, owned by the subject of the
     * step's flow, and returns its confirmed entry. Safe to call any number of times from any
     * number of deliveries: a confirmed entry is returned without calling the leaf; otherwise the
     * entry is claimed, the leaf is looked at before anything is created, and the leaf's answer is
     * recorded the moment it arrives. Throws {@link ResourceConflict} when the key belongs to
     * someone else. For a type {@link RepetitionSafety#IDEMPOTENT_BY_KEY} the {@code params} are
     * stored with the entry (JSON), so that teardown and the reaper can resend the create with the
     * entry's key: they must serialize, and must carry no secret.
     *
     * <p>A step outside a flow names the owner with {@link #ensure(ResourceType, String, String, Map)};
     * without one the call is refused for good ({@link dev.converge.queue.NonRetryableException},
     * the job fails without a retry) and the message shows that call.
     */
    LedgerEntry ensure(ResourceType type, String naturalKey, Map<String, Object> params);

    /**
     * As {@link #ensure(ResourceType, String, Map)}, owned by {@code subject} (a step outside a
     * flow); a null subject is the step's flow's, as in the other form.
     */
    LedgerEntry ensure(ResourceType type, String naturalKey, String subject, Map<String, Object> params);

    /** Makes one call that creates no resource, retried (or not) as its declared safety allows. */
    <T> T call(LeafCall<T> call);

    /**
     * Tears down every resource of a flow, newest first. Returns false if it must wait for a
     * create still in flight (the job was asked to come back later); true when all are settled.
     */
    boolean teardownFlow(long flowId);

    /** Tears down every resource owned by a subject (all its flows), newest first. */
    boolean teardownSubject(String subject);

    /** An entry by id. */
    Optional<LedgerEntry> entry(long entryId);

    /** The entry of a resource kind's natural key. */
    Optional<LedgerEntry> entry(String kind, String naturalKey);

    /** The entries of a flow, oldest first. */
    List<LedgerEntry> entriesOfFlow(long flowId);

    /** The entries owned by a subject, oldest first. */
    List<LedgerEntry> entriesOfSubject(String subject);
}
