package dev.converge.store.internal;

import dev.converge.store.Sql;

/**
 * The engine's own statements: a template's time tokens expanded by a {@link Dialect}, then parsed
 * as a {@link Sql}. Apart from {@code Dialect} so that the dialects depend on nothing of the store's.
 */
public final class Templates {
    private Templates() {
    }

    /** A statement of the engine's: {@code template}'s time tokens expanded for {@code dialect}'s database. */
    public static Sql sql(Dialect dialect, String template) {
        return Sql.of(dialect.expand(template));
    }
}
