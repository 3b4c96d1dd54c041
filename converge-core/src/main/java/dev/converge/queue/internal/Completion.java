package dev.converge.queue.internal;

import dev.converge.queue.RetryPolicy;

/** A delivery's outcome waiting to be made durable, with the policy that decides a retry. */
public record Completion(LeasedJob job, Outcome outcome, RetryPolicy policy) {
}
