package dev.converge.crash;

/**
 * The windows in which a worker dying does the most damage to a naive job system. Each is a
 * place the engine announces to its {@link CrashPlan}; convergence must hold if the worker
 * dies at any of them.
 */
public enum CrashPoint {
    /** The leaf answered a create, and its answer is not yet in the ledger. */
    AFTER_LEAF_ANSWER("ledger.after-leaf-answer"),
    /** The ledger row was claimed, and the leaf has not been called yet. */
    AFTER_CLAIM("ledger.after-claim"),
    /** The ledger row is confirmed, and the job has not completed. */
    AFTER_LEDGER_WRITE("ledger.after-ledger-write"),
    /** Teardown deleted a resource at the leaf, and has not recorded it. */
    INSIDE_TEARDOWN("ledger.inside-teardown"),
    /** A single-use token was spent at the leaf, and the spend is not yet recorded. */
    AFTER_TOKEN_USE("token.after-use"),
    /** The handler returned, and its completion is not yet durable. */
    BEFORE_COMPLETE("job.before-complete");

    private final String id;

    CrashPoint(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    @Override
    public String toString() {
        return id;
    }
}
