package dev.converge.ledger;

/**
 * What happens if an operation runs twice, declared by each operation (R14). The engine's
 * behaviour after an error or an ambiguous outcome follows from it, not from the job.
 */
public enum RepetitionSafety {
    /** Changes nothing (check a URL, look something up): retried freely. */
    READ_ONLY(true),
    /** Running it again gives the same end state (delete, replace by key): retried freely; "not found" on delete is success. */
    NATURALLY_IDEMPOTENT(true),
    /** A create the leaf keeps unique by a natural key: look it up, adopt it if ours, else create. */
    IDEMPOTENT_BY_CONSTRAINT(true),
    /** The leaf accepts an idempotency key; we derive it from the ledger row, so a retry sends the same key. */
    IDEMPOTENT_BY_KEY(true),
    /** A single-use token is the permission: spent once, given back on every definitive failure. */
    IDEMPOTENT_BY_TOKEN(false),
    /** Anything else: never retried blindly after an ambiguous outcome; the flow goes to needs_attention. */
    UNSAFE(false);

    private final boolean retryAfterAmbiguity;

    RepetitionSafety(boolean retryAfterAmbiguity) {
        this.retryAfterAmbiguity = retryAfterAmbiguity;
    }

    /** Whether an ambiguous outcome may be resolved by simply trying again (after a lookup where there is one). */
    public boolean retriesAfterAmbiguity() {
        return retryAfterAmbiguity;
    }

    public String sql() {
        return name().toLowerCase();
    }

    /** The safety as a database column holds it (its {@link #sql()} form). */
    public static RepetitionSafety fromSql(String s) {
        return valueOf(s.toUpperCase());
    }
}
