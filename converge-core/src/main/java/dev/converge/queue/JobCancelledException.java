package dev.converge.queue;

import dev.converge.ConvergeException;

/**
 * The work this job belongs to was cancelled (its batch or flow), and the job stopped before any
 * side effect. Its job ends {@code cancelled}, not failed, and is not retried.
 */
public class JobCancelledException extends ConvergeException {
    public JobCancelledException(String message) {
        super(message);
    }
}
