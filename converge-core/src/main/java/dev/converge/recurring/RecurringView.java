package dev.converge.recurring;

import java.time.Instant;

/**
 * What an operator sees of one recurring job.
 *
 * @param lastSlot  the last slot decided (enqueued or skipped), null before the first round
 * @param lastJobId the job of the last slot that was enqueued, if any
 * @param skipped   slots skipped under {@link MissedSlots#SKIP} so far
 * @param nextSlot  the next slot due
 */
public record RecurringView(String name, String jobType, String queue, String schedule, MissedSlots missedSlots,
        Instant lastSlot, Long lastJobId, long skipped, Instant nextSlot) {
}
