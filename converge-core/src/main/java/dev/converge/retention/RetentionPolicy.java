package dev.converge.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * How long finished work is kept before the retention task deletes it. Ages are measured from a
 * row's {@code finished_at}. Jobs, batches and chains that are not part of a flow go by their own
 * state's age; a flow goes with everything it holds (its jobs, batches, chains, events and
 * compensations) once it is {@code flowAge} old. Flows that need attention are never deleted, and
 * ledger entries are never deleted: the ledger is the record of side effects.
 *
 * @param succeeded  age of succeeded jobs, batches and chains (default 24 hours)
 * @param cancelled  age of cancelled ones (default 24 hours)
 * @param failed     age of failed ones (default 7 days)
 * @param flows      age of succeeded and failed flows and everything they hold (default 30 days)
 * @param batchSize  the most rows one delete statement removes (default 500): no long locks
 * @param every      how often the node holding the retention claim runs a round (default 1 minute)
 * @param maxBatchesPerRound  the most delete batches of each kind one round runs (default 20)
 */
public record RetentionPolicy(Duration succeeded, Duration cancelled, Duration failed, Duration flows, int batchSize,
        Duration every, int maxBatchesPerRound) {

    /**
     * Succeeded and cancelled work kept 24 hours, failed 7 days, flows 30 days; 500 rows a statement,
     * a round every minute.
     */
    public static RetentionPolicy defaults() {
        return new RetentionPolicy(Duration.ofHours(24), Duration.ofHours(24), Duration.ofDays(7), Duration.ofDays(30),
                500, Duration.ofMinutes(1), 20);
    }

    public RetentionPolicy {
        notNegative("succeeded", succeeded);
        notNegative("cancelled", cancelled);
        notNegative("failed", failed);
        notNegative("flows", flows);
        if (batchSize < 1 || batchSize > 10_000) {
            throw new IllegalArgumentException("retention batch size must be between 1 and 10000, was " + batchSize);
        }
        if (every == null || every.toMillis() < 10) {
            throw new IllegalArgumentException("retention interval must be at least 10ms");
        }
        if (maxBatchesPerRound < 1) {
            throw new IllegalArgumentException("retention needs at least one batch per round");
        }
    }

    private static void notNegative(String name, Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("retention age '" + name + "' must not be negative");
        }
    }

    public RetentionPolicy succeededAfter(Duration d) {
        return new RetentionPolicy(d, cancelled, failed, flows, batchSize, every, maxBatchesPerRound);
    }

    public RetentionPolicy cancelledAfter(Duration d) {
        return new RetentionPolicy(succeeded, d, failed, flows, batchSize, every, maxBatchesPerRound);
    }

    public RetentionPolicy failedAfter(Duration d) {
        return new RetentionPolicy(succeeded, cancelled, d, flows, batchSize, every, maxBatchesPerRound);
    }

    public RetentionPolicy flowsAfter(Duration d) {
        return new RetentionPolicy(succeeded, cancelled, failed, d, batchSize, every, maxBatchesPerRound);
    }

    public RetentionPolicy batchSize(int n) {
        return new RetentionPolicy(succeeded, cancelled, failed, flows, n, every, maxBatchesPerRound);
    }

    public RetentionPolicy every(Duration d) {
        return new RetentionPolicy(succeeded, cancelled, failed, flows, batchSize, d, maxBatchesPerRound);
    }

    public RetentionPolicy maxBatchesPerRound(int n) {
        return new RetentionPolicy(succeeded, cancelled, failed, flows, batchSize, every, n);
    }

    /** The age of a finished state's rows ({@code succeeded}, {@code cancelled}, {@code failed}). */
    public Duration ageOf(String state) {
        return switch (Objects.requireNonNull(state)) {
            case "succeeded" -> succeeded;
            case "cancelled" -> cancelled;
            case "failed" -> failed;
            default -> throw new IllegalArgumentException("not a finished state: " + state);
        };
    }
}
