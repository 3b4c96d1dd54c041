package dev.converge.store.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The engine's tables, and their names in the schema a store was given. A statement names a table
 * bare ({@code FROM cv_job}); in a schema it becomes {@code schema.cv_job}. A column named through
 * its table ({@code cv_job.id}) stays as it is: the database resolves it against the qualified
 * table of the same statement.
 */
public final class EngineTables {
    private static final Pattern TABLE = Pattern.compile("(?<![\\w.\"'])(cv_(?:job_attempt|job|batch|chain|claim"
            + "|compensation|flow_event|flow|leader_round|ledger|node|queue_history|recurring|token|schema_history))"
            + "(?![\\w.\"'])");

    private EngineTables() {
    }

    /** {@code sql} with every engine table it names put in {@code schema}; unchanged when schema is null. */
    public static String qualify(String sql, String schema) {
        if (schema == null) {
            return sql;
        }
        return TABLE.matcher(sql).replaceAll(Matcher.quoteReplacement(schema) + ".$1");
    }
}
