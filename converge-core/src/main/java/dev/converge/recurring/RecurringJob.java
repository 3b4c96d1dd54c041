package dev.converge.recurring;

import dev.converge.queue.JobType;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A job enqueued on a schedule: its name (the key of its slots, by default the job type's name),
 * the schedule, the payload of each run, and what happens to slots missed during downtime.
 * Immutable; the {@code with...} methods return changed copies.
 */
public final class RecurringJob<T> {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,199}");

    private final String name;
    private final JobType<T> type;
    private final Schedule schedule;
    private final Function<Instant, T> payload;
    private final MissedSlots missed;
    private final Duration grace;

    private RecurringJob(String name, JobType<T> type, Schedule schedule, Function<Instant, T> payload,
            MissedSlots missed, Duration grace) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a recurring job name must be 1-200 characters of letters, digits and ._:- : " + name);
        }
        if (grace == null || grace.isNegative()) {
            throw new IllegalArgumentException("grace must not be negative");
        }
        this.name = name;
        this.type = Objects.requireNonNull(type, "type");
        this.schedule = Objects.requireNonNull(schedule, "schedule");
        this.payload = Objects.requireNonNull(payload, "payload");
        this.missed = Objects.requireNonNull(missed, "missed");
        this.grace = grace;
    }

    /** Each run's payload says which slot it is for. */
    public static RecurringJob<Occurrence> of(JobType<Occurrence> type, Schedule schedule) {
        return new RecurringJob<>(type.name(), type, schedule, slot -> new Occurrence(type.name(), slot),
                MissedSlots.RUN_ONCE, Duration.ofMinutes(1));
    }

    /** Each run's payload is computed from its slot. */
    public static <T> RecurringJob<T> of(JobType<T> type, Schedule schedule, Function<Instant, T> payload) {
        return new RecurringJob<>(type.name(), type, schedule, payload, MissedSlots.RUN_ONCE, Duration.ofMinutes(1));
    }

    /** Another name, so that one job type can run on several schedules. */
    public RecurringJob<T> withName(String n) {
        RecurringJob<T> renamed = new RecurringJob<>(n, type, schedule, payload, missed, grace);
        return renamed;
    }

    /** What happens to slots missed during downtime (default {@link MissedSlots#RUN_ONCE}). */
    public RecurringJob<T> withMissedSlots(MissedSlots policy) {
        return new RecurringJob<>(name, type, schedule, payload, policy, grace);
    }

    /** How late a slot may be found and still count as on time under {@link MissedSlots#SKIP} (default 1 min). */
    public RecurringJob<T> withGrace(Duration g) {
        return new RecurringJob<>(name, type, schedule, payload, missed, g);
    }

    public String name() {
        return name;
    }

    public JobType<T> type() {
        return type;
    }

    public Schedule schedule() {
        return schedule;
    }

    public MissedSlots missedSlots() {
        return missed;
    }

    public Duration grace() {
        return grace;
    }

    /** The payload of the run for {@code slot}. */
    public T payloadFor(Instant slot) {
        return payload.apply(slot);
    }

    /** The unique key of the run for {@code slot}: the same on every node. */
    public String uniqueKey(Instant slot) {
        return "recurring:" + name + ":" + slot;
    }
}
