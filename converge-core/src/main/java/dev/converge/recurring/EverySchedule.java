package dev.converge.recurring;

import java.time.Duration;
import java.time.Instant;

/** Fixed-interval slots, aligned on the epoch so every node computes the same instants. */
final class EverySchedule {
    private final Duration interval;
    private final long millis;

    EverySchedule(Duration interval) {
        if (interval == null || interval.compareTo(Duration.ofSeconds(1)) < 0 || interval.compareTo(Duration.ofDays(366)) > 0) {
            throw new IllegalArgumentException("a recurring interval must be between 1s and 366 days, was " + interval);
        }
        this.interval = interval;
        this.millis = interval.toMillis();
    }

    public Instant latestAtOrBefore(Instant t) {
        return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), millis) * millis);
    }

    public Instant nextAfter(Instant t) {
        return latestAtOrBefore(t).plusMillis(millis);
    }

    public String describe() {
        return "every " + interval;
    }
}
