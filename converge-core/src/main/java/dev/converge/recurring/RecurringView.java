package dev.converge.recurring;

import java.time.Instant;

/**
 * What an operator sees of one recurring job.
 *
 * @param lastSlot   the last slot decided (enqueued or skipped), null before the first round
 * @param lastJobId  the job of the last slot that was enqueued, if any
 * @param skipped    slots skipped so far: under {@link MissedSlots#SKIP}, and while paused
 * @param nextSlot   the next slot due (while paused, it passes as skipped)
 * @param pausedAt   when a person paused it; null while it runs
 * @param lastAction the last thing a person did to it, null if nobody did
 */
public record RecurringView(String name, String jobType, String queue, String schedule, MissedSlots missedSlots,
        Instant lastSlot, Long lastJobId, long skipped, Instant nextSlot, Instant pausedAt, Action lastAction) {

    /** A person's action on a recurring job: {@code paused}, {@code resumed} or {@code ran_now}; who, why, when. */
    public record Action(String action, String actor, String reason, Instant at) {
    }

    public boolean paused() {
        return pausedAt != null;
    }
}
