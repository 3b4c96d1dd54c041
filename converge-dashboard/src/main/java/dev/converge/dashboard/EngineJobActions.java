package dev.converge.dashboard;

import dev.converge.Converge;
import dev.converge.queue.JobRow;
import java.util.NoSuchElementException;

/** "Retry now" and "cancel" through the engine's fenced paths, with the operator and reason recorded on the job. */
final class EngineJobActions implements Dashboard.JobActions {
    private final Converge engine;

    EngineJobActions(Converge engine) {
        this.engine = engine;
    }

    @Override
    public String retry(String operatorId, long jobId, String reason) {
        JobRow job = engine.job(jobId).orElseThrow(() -> new NoSuchElementException("There is no job " + jobId + "."));
        boolean won = engine.retryFailedJob(jobId, actor(operatorId), reason);
        return won ? "Job " + jobId + " (" + job.kind() + ") runs again from its first attempt."
                : "Job " + jobId + " is " + state(jobId) + ", not failed: nothing was retried (someone may have retried it already).";
    }

    @Override
    public String cancel(String operatorId, long jobId, String reason) {
        JobRow job = engine.job(jobId).orElseThrow(() -> new NoSuchElementException("There is no job " + jobId + "."));
        boolean won = engine.cancelWaitingJob(jobId, actor(operatorId), reason);
        return won ? "Job " + jobId + " (" + job.kind() + ") is cancelled before it ran"
                + (job.flowId() != null ? "; flow " + job.flowId() + " fails and compensates." : ".")
                : "Job " + jobId + " is " + state(jobId) + ", not waiting: nothing was cancelled (it started, ended, or"
                        + " someone cancelled it already).";
    }

    private String state(long jobId) {
        return engine.job(jobId).map(j -> j.state().sql()).orElse("gone");
    }

    private static String actor(String operatorId) {
        return "operator " + operatorId + " (dashboard)";
    }
}
