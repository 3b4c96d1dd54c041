package dev.converge.queue.internal;

import java.time.Instant;
import java.util.Objects;

/**
 * A job row about to be inserted: its payload is already JSON. Built by the engine from a
 * typed {@link dev.converge.queue.Job}; the store takes it as is.
 *
 * @param runAt   null means "now plus {@code delayMs}" by the engine clock
 * @param delayMs used when {@code runAt} is null
 */
public record NewJob(
        String queue,
        String kind,
        String payload,
        Instant runAt,
        long delayMs,
        int maxAttempts,
        Long timeoutMs,
        String uniqueKey,
        Long batchId,
        Long chainId,
        Integer chainPos,
        Long flowId) {

    public NewJob {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payload, "payload");
        if (delayMs < 0) {
            throw new IllegalArgumentException("delay must not be negative");
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
    }

    public static NewJob simple(String queue, String kind, String payload, int maxAttempts) {
        return new NewJob(queue, kind, payload, null, 0, maxAttempts, null, null, null, null, null, null);
    }

    public NewJob inBatch(long batch) {
        return new NewJob(queue, kind, payload, runAt, delayMs, maxAttempts, timeoutMs, uniqueKey, batch, chainId, chainPos, flowId);
    }

    public NewJob inChain(long chain, int position) {
        return new NewJob(queue, kind, payload, runAt, delayMs, maxAttempts, timeoutMs, uniqueKey, batchId, chain, position, flowId);
    }

    public NewJob inFlow(Long flow) {
        return new NewJob(queue, kind, payload, runAt, delayMs, maxAttempts, timeoutMs, uniqueKey, batchId, chainId, chainPos, flow);
    }

    /**
     * Due since {@code instant} when the job was to run at once: a continuation of work that began
     * then (a chain's next link, a flow's next step) sorts before work that began later, in the same
     * queue. A job with its own run time or delay keeps it.
     */
    public NewJob dueSince(Instant instant) {
        if (runAt != null || delayMs != 0 || instant == null) {
            return this;
        }
        return new NewJob(queue, kind, payload, instant, 0, maxAttempts, timeoutMs, uniqueKey, batchId, chainId, chainPos, flowId);
    }

    public NewJob withUniqueKey(String key) {
        return new NewJob(queue, kind, payload, runAt, delayMs, maxAttempts, timeoutMs, key, batchId, chainId, chainPos, flowId);
    }
}
