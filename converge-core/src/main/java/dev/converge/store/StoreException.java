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
}
