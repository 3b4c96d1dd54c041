package dev.converge.ledger;

/**
 * A single call to a leaf that creates no resource of its own (deploy, check a URL, send a
 * notification), with its declared repetition safety.
 */
public interface LeafCall<T> {
    /** Names the call in errors and in the derived idempotency key. */
    String name();

    RepetitionSafety safety();

    /** Makes the call. {@code idempotencyKey} is derived from the job's durable identity. */
    T call(String idempotencyKey) throws LeafCallException;
}
