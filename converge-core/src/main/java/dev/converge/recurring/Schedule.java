package dev.converge.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.function.UnaryOperator;

/**
 * When a recurring job is due: a sequence of instants ("slots"). Each slot is enqueued at most
 * once across the cluster; its instant names the job's unique key.
 */
public interface Schedule {

    /** The latest slot at or before {@code t}, or null if there is none. */
    Instant latestAtOrBefore(Instant t);

    /** The first slot strictly after {@code t}, or null if there is none. */
    Instant nextAfter(Instant t);

    /** How an operator reads it: "every PT5M", "cron 0 * * * * Europe/Madrid". */
    String describe();

    /** Slots every {@code interval}, aligned on the epoch (an hourly job runs on the hour). */
    static Schedule every(Duration interval) {
        EverySchedule s = new EverySchedule(interval);
        return slots(s::latestAtOrBefore, s::nextAfter, s.describe());
    }

    /** Slots of a five-field Unix cron expression, read in {@code zone} (daylight saving included). */
    static Schedule cron(String expression, ZoneId zone) {
        CronSchedule s = CronSchedule.parse(expression, zone);
        return slots(s::latestAtOrBefore, s::nextAfter, s.describe());
    }

    /** A schedule of the engine's own kinds (they do not implement this interface, so that it names them alone). */
    private static Schedule slots(UnaryOperator<Instant> latest, UnaryOperator<Instant> next, String description) {
        return new Schedule() {
            @Override
            public Instant latestAtOrBefore(Instant t) {
                return latest.apply(t);
            }

            @Override
            public Instant nextAfter(Instant t) {
                return next.apply(t);
            }

            @Override
            public String describe() {
                return description;
            }

            @Override
            public String toString() {
                return description;
            }
        };
    }
}
