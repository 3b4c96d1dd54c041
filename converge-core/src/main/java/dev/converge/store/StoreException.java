package dev.converge.store;

import dev.converge.ConvergeException;
import java.sql.SQLException;

/** A database operation failed. Wraps {@link SQLException} so callers deal with one unchecked root. */
public class StoreException extends ConvergeException {
    private final String sqlState;

    public StoreException(String message, SQLException cause) {
        super(message + ": " + cause.getMessage(), cause);
        this.sqlState = cause.getSQLState();
    }

    public StoreException(String message) {
        super(message);
        this.sqlState = null;
    }

    /** The SQLState of the underlying error, or null. 23505 is a unique violation on both stores. */
    public String sqlState() {
        return sqlState;
    }

    public boolean isUniqueViolation() {
        return "23505".equals(sqlState);
    }

    /**
     * Whether the database rolled the transaction back to let others go on: chosen as a deadlock
     * victim or refused for a serialization conflict (SQLState class 40 on both stores, e.g.
     * PostgreSQL's 40P01 and H2's 40001). Running the same work again may well succeed.
     */
    public boolean isRollbackVictim() {
        for (Throwable t = this; t != null; t = t.getCause()) {
            if (t instanceof SQLException e && e.getSQLState() != null && e.getSQLState().startsWith("40")) {
                return true;
            }
        }
        return false;
    }
}
