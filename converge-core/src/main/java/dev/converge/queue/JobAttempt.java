package dev.converge.queue;

import java.time.Instant;

/**
 * One attempt of a job that did not succeed, as recorded when its outcome landed: the node that
 * ran it, when it started and ended, and the whole error. {@code outcome} is {@code retried} (the
 * job was put back for another attempt), {@code expired} (its lease ran out: the node was killed,
 * paused or cut off, or the handler overran its timeout; put back), {@code released} (its handler
 * asked to run it again later without a refund of the attempt, as when a leaf throttles) or
 * {@code failed} (the job failed for good). A job's last
 * attempt, whatever its outcome, is also told by its {@link JobRow} (started, finished, state,
 * {@linkplain JobRow#leaseOwner() node}).
 */
public record JobAttempt(int attempt, String nodeId, Instant startedAt, Instant finishedAt, String outcome,
        String error) {
}
