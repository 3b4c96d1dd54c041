package dev.converge.dashboard;

import dev.converge.Converge;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.ledger.LedgerEntry;
import dev.converge.queue.JobRow;
import dev.converge.token.Token;
import java.util.NoSuchElementException;

/** The dashboard's actions through the engine's fenced paths, with the operator and reason recorded by the engine. */
final class EngineActions implements Dashboard.Actions {
    private final Converge engine;

    EngineActions(Converge engine) {
        this.engine = engine;
    }

    @Override
    public Dashboard.Outcome retryJob(String operatorId, long jobId, String reason) {
        JobRow job = engine.job(jobId).orElseThrow(() -> new NoSuchElementException("There is no job " + jobId + "."));
        boolean won = engine.retryFailedJob(jobId, actor(operatorId), reason);
        return new Dashboard.Outcome(won, won ? "Job " + jobId + " (" + job.kind() + ") runs again from its first attempt."
                : "Job " + jobId + " is " + state(jobId) + ", not failed: nothing was retried (someone may have retried it already).");
    }

    @Override
    public Dashboard.Outcome cancelJob(String operatorId, long jobId, String reason) {
        JobRow job = engine.job(jobId).orElseThrow(() -> new NoSuchElementException("There is no job " + jobId + "."));
        boolean won = engine.cancelWaitingJob(jobId, actor(operatorId), reason);
        return new Dashboard.Outcome(won, won ? "Job " + jobId + " (" + job.kind() + ") is cancelled before it ran"
                + (job.flowId() != null ? "; flow " + job.flowId() + " fails and compensates." : ".")
                : "Job " + jobId + " is " + state(jobId) + ", not waiting: nothing was cancelled (it started, ended, or"
                        + " someone cancelled it already).");
    }

    @Override
    public Dashboard.Outcome retryFlow(String operatorId, long flowId, String reason) {
        FlowView flow = engine.flows().get(flowId).orElseThrow(() -> new NoSuchElementException("There is no flow "
                + flowId + "."));
        boolean won = engine.flows().retry(flowId, actor(operatorId), reason);
        return new Dashboard.Outcome(won, won ? "Flow " + flowId + " (" + flow.kind() + ") compensates again from where it "
                + "stopped." : "Flow " + flowId + " is " + engine.flows().get(flowId).map(f -> f.state().sql()).orElse("gone")
                        + ", not " + FlowState.NEEDS_ATTENTION.sql() + ": nothing was retried (only a flow that needs "
                        + "attention is; a finished one is started again by its application).");
    }

    @Override
    public Dashboard.Outcome settleEntry(String operatorId, long entryId, String leafId, String reason) {
        LedgerEntry e = engine.ledger().entry(entryId).orElseThrow(() -> new NoSuchElementException(
                "There is no ledger entry " + entryId + "."));
        boolean won = leafId != null ? engine.ledger().settleExists(entryId, leafId, actor(operatorId), reason)
                : engine.ledger().settleAbsent(entryId, actor(operatorId), reason);
        String what = e.kind() + " '" + e.naturalKey() + "'";
        return new Dashboard.Outcome(won, won ? (leafId != null ? what + " exists as " + leafId + ": adopted and confirmed."
                : what + " does not exist: released.")
                : what + " is " + engine.ledger().entry(entryId).map(x -> x.state().sql()).orElse("gone")
                        + ": only a claimed or uncertain entry whose owner is not running is settled by hand; nothing changed.");
    }

    @Override
    public Dashboard.Outcome settleToken(String operatorId, long tokenId, boolean used, String reason) {
        Token t = engine.tokens().get(tokenId).orElseThrow(() -> new NoSuchElementException("There is no token "
                + tokenId + "."));
        boolean won = engine.tokens().settle(tokenId, used, actor(operatorId), reason);
        return new Dashboard.Outcome(won, won ? "Token " + tokenId + " of pool " + t.pool() + (used
                ? " is spent: its use happened." : " is available again: its use did not happen.")
                : "Token " + tokenId + " has no unknown use to settle (it is "
                        + engine.tokens().get(tokenId).map(x -> x.state().sql()).orElse("gone") + "); nothing changed.");
    }

    @Override
    public Dashboard.Outcome pauseRecurring(String operatorId, String name, String reason) {
        boolean won = engine.recurring().pause(name, actor(operatorId), reason);
        return new Dashboard.Outcome(won, won ? "Recurring job " + name + " is paused: its slots pass, not run, until it "
                + "is resumed." : "Recurring job " + name + " was paused already; nothing changed.");
    }

    @Override
    public Dashboard.Outcome resumeRecurring(String operatorId, String name, String reason) {
        boolean won = engine.recurring().resume(name, actor(operatorId), reason);
        return new Dashboard.Outcome(won, won ? "Recurring job " + name + " runs again from its next slot"
                + engine.recurring().view(name).map(v -> v.nextSlot() == null ? "" : " (" + v.nextSlot() + ")").orElse("")
                + "; the slots that passed while paused are not run." : "Recurring job " + name
                        + " was not paused; nothing changed.");
    }

    @Override
    public Dashboard.Outcome runRecurring(String operatorId, String name, String reason) {
        long id = engine.recurring().runNow(name, actor(operatorId), reason);
        return new Dashboard.Outcome(true, "Recurring job " + name + " runs now as job " + id
                + "; its schedule goes on unchanged.");
    }

    private String state(long jobId) {
        return engine.job(jobId).map(j -> j.state().sql()).orElse("gone");
    }

    private static String actor(String operatorId) {
        return "operator " + operatorId + " (dashboard)";
    }
}
