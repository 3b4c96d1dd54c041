package dev.converge.recurring;

import java.util.List;
import java.util.Optional;

/**
 * Decides the slots of an engine's recurring jobs. Each round (on the one node holding the
 * recurring claim, though any node may run a round safely), for each job: the slot due now is
 * decided in one transaction that locks the job's {@code cv_recurring} row, enqueues the run
 * under a unique key naming the slot, and records the slot. The row lock makes nodes decide a
 * slot one after the other, and the unique key makes a second decision of the same slot a no-op,
 * even from a leader that was paused past its claim.
 */
public interface RecurringJobs {

    /** The declared recurring jobs. */
    List<RecurringJob<?>> declared();

    /** One round over every recurring job; returns how many runs it enqueued. */
    int tick();

    /** What an operator sees of each recurring job: last decided slot, its job, the next slot. */
    List<RecurringView> list();

    /**
     * Pauses a recurring job across the fleet: its slots pass as skipped until it is resumed (a
     * run already enqueued still runs). Records who and why. False if it was paused already.
     *
     * @throws java.util.NoSuchElementException if no recurring job has that name
     * @throws IllegalStateException on the previous release's schema (migrate first)
     */
    boolean pause(String name, String actor, String reason);

    /**
     * Resumes a paused recurring job from its next slot (the slots that passed while paused are not
     * run). Records who and why. False if it was not paused.
     */
    boolean resume(String name, String actor, String reason);

    /**
     * Enqueues a run of a recurring job now, as if a slot fell now (its payload for this instant),
     * beside its schedule, which goes on unchanged; paused or not. Records who and why. Returns the job's id.
     */
    long runNow(String name, String actor, String reason);

    /** What an operator sees of one recurring job, by name. */
    Optional<RecurringView> view(String name);
}
