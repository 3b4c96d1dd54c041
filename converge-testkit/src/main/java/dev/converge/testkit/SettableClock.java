package dev.converge.testkit;

import dev.converge.time.EngineClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock for tests: the store binds its instant as "now" instead of asking the database, so a
 * test moves time (expires leases and claims, makes delayed jobs due) without sleeping.
 */
public final class SettableClock implements EngineClock {
    private final AtomicReference<Instant> now;

    public SettableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    public static SettableClock atNow() {
        return new SettableClock(Instant.now());
    }

    @Override
    public Instant sqlNow() {
        return now.get();
    }

    @Override
    public Instant localNow() {
        return now.get();
    }

    public void set(Instant instant) {
        now.set(instant);
    }

    public Instant advance(Duration d) {
        return now.updateAndGet(t -> t.plus(d));
    }

    @Override
    public String toString() {
        return "settable clock at " + now.get();
    }
}
