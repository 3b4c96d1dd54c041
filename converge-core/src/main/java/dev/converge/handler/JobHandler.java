package dev.converge.handler;

/**
 * Runs one job. It may run more than once for the same job (at-least-once delivery): write it
 * so that the end state of two runs equals one, for instance by making its external calls
 * through the ledger.
 *
 * <p>Return normally: the job succeeded. Call {@link JobContext#release} then return: run it
 * again later. Throw {@link dev.converge.queue.NonRetryableException}: fail now. Throw anything
 * else: retry by the type's policy until attempts run out.
 */
@FunctionalInterface
public interface JobHandler<T> {
    void handle(T payload, JobContext ctx) throws Exception;
}
