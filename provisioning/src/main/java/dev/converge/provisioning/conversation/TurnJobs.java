package dev.converge.provisioning.conversation;

import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;

/**
 * The assistant's job types. A turn has exactly one attempt ({@link RetryPolicy#never()}): the
 * loop never retries, so a turn whose worker dies is failed, never run again by the queue (the
 * person may send the message again). Its flow's failure report marks the turn failed.
 */
public final class TurnJobs {
    /** One turn of one conversation. */
    public record TurnRef(long conversationId, long turnId) {
    }

    public static final String FLOW = "assistant-turn";

    public final JobType<TurnRef> turn;
    public final JobType<TurnRef> turnFailed;

    public TurnJobs(Duration turnTimeout) {
        turn = JobType.of("assistant.turn", TurnRef.class).withRetry(RetryPolicy.never()).withTimeout(turnTimeout);
        turnFailed = JobType.of("assistant.turn-failed", TurnRef.class)
                .withRetry(RetryPolicy.attempts(10).backoff(Duration.ofMillis(200)).cappedAt(Duration.ofSeconds(30)));
    }
}
