package dev.converge.time;

import java.time.Instant;

/** The production clock: the database decides what time it is. */
final class DatabaseClock implements EngineClock {
    static final DatabaseClock INSTANCE = new DatabaseClock();

    private DatabaseClock() {
    }

    @Override
    public Instant sqlNow() {
        return null;
    }

    @Override
    public Instant localNow() {
        return Instant.now();
    }

    @Override
    public String toString() {
        return "database clock";
    }
}
