package dev.converge.ledger;

import java.util.Objects;

/**
 * A single call to a leaf that creates no resource of its own (deploy, check a URL, send a
 * notification), with its declared repetition safety.
 *
 * <pre>{@code
 * ctx.ledger().call(LeafCall.of("deploy", RepetitionSafety.NATURALLY_IDEMPOTENT,
 *         key -> hosting.deploy(siteId, key)));
 * }</pre>
 */
public interface LeafCall<T> {
    /** Names the call in errors and in the derived idempotency key. */
    String name();

    RepetitionSafety safety();

    /** Makes the call. {@code idempotencyKey} is derived from the job's durable identity. */
    T call(String idempotencyKey) throws LeafCallException;

    /** What a {@link LeafCall} made with {@link #of} runs. */
    @FunctionalInterface
    interface Body<T> {
        T call(String idempotencyKey) throws LeafCallException;
    }

    /** A named call with its declared safety, without a class of its own. */
    static <T> LeafCall<T> of(String name, RepetitionSafety safety, Body<T> body) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a leaf call needs a name");
        }
        Objects.requireNonNull(safety, "safety");
        Objects.requireNonNull(body, "body");
        return new LeafCall<>() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public RepetitionSafety safety() {
                return safety;
            }

            @Override
            public T call(String idempotencyKey) throws LeafCallException {
                return body.call(idempotencyKey);
            }

            @Override
            public String toString() {
                return "leaf call " + name + " (" + safety + ")";
            }
        };
    }
}
