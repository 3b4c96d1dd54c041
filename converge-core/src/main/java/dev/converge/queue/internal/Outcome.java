package dev.converge.queue.internal;

/** How one delivery of a job ended, as the worker saw it. */
public sealed interface Outcome {
    record Succeeded() implements Outcome {
    }

    /** The handler failed; {@code retryable} false means fail at once. */
    record Failed(String error, boolean retryable) implements Outcome {
    }

    /** Run again after the delay; {@code refundAttempt} if the handler never started. */
    record Released(long delayMs, boolean refundAttempt) implements Outcome {
    }

    /** The job's batch or flow was cancelled and it stopped before any side effect. */
    record Cancelled(String reason) implements Outcome {
    }

    /** Nobody completed the delivery before its lease expired (found by the rescuer). */
    record Expired(String why) implements Outcome {
    }

    Succeeded SUCCEEDED = new Succeeded();
}
