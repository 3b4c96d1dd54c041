package dev.converge.queue.internal;

import java.time.Duration;

/**
 * The engine's timing and sizing, validated together by the builder.
 *
 * @param lease          how long a delivery holds its job without a heartbeat
 * @param heartbeat      how often leases of held jobs are extended (well under {@code lease})
 * @param poll           how long an idle fetcher waits when no wake-up comes
 * @param rescue         how often expired leases are looked for
 * @param fetchLimit     the most jobs one fetch statement leases
 * @param shutdownGrace  how long {@code close()} lets running handlers finish
 * @param unhandledGrace how long a due job whose type no node handles waits before it fails
 */
public record EngineSettings(
        Duration lease,
        Duration heartbeat,
        Duration poll,
        Duration rescue,
        int fetchLimit,
        Duration shutdownGrace,
        Duration unhandledGrace) {

    public static EngineSettings defaults() {
        return new EngineSettings(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofSeconds(5), 100, Duration.ofSeconds(10), Duration.ofHours(1));
    }

    public EngineSettings {
        positive("lease", lease);
        positive("heartbeat", heartbeat);
        positive("poll", poll);
        positive("rescue", rescue);
        positive("unhandledGrace", unhandledGrace);
        if (shutdownGrace == null || shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("shutdownGrace must not be negative");
        }
        if (heartbeat.multipliedBy(2).compareTo(lease) > 0) {
            throw new IllegalArgumentException("heartbeat (" + heartbeat + ") must be at most half the lease (" + lease
                    + ") so that one missed beat does not lose a healthy lease");
        }
        if (fetchLimit < 1 || fetchLimit > 10_000) {
            throw new IllegalArgumentException("fetchLimit must be between 1 and 10000, was " + fetchLimit);
        }
    }

    private static void positive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
    }
}
