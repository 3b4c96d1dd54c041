package dev.converge.time;

import java.time.Instant;

/**
 * Where the engine's notion of "now" comes from.
 *
 * <p>In production every time decision that matters for safety (lease expiry, claim expiry, due
 * jobs) is taken by the database clock, so clock skew between worker machines cannot steal a
 * healthy lease. {@link #database()} says exactly that: {@link #sqlNow()} returns null and the
 * store's SQL falls back to the database's own timestamp. A test clock returns a fixed instant
 * that the store binds instead, so tests can move time without sleeping.
 */
public interface EngineClock {

    /** The instant the store binds as "now", or null to use the database's clock. */
    Instant sqlNow();

    /** Local "now" for decisions that need no agreement between machines (logging, metrics). */
    Instant localNow();

    /** The production clock: the database decides what time it is. */
    static EngineClock database() {
        return new EngineClock() {
            @Override
            public Instant sqlNow() {
                return null; // the store's SQL uses the database's own timestamp
            }

            @Override
            public Instant localNow() {
                return Instant.now();
            }

            @Override
            public String toString() {
                return "database clock";
            }
        };
    }
}
