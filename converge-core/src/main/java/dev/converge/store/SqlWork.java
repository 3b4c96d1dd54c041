package dev.converge.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Work against one connection; what the store runs inside a unit of work or a transaction. */
@FunctionalInterface
public interface SqlWork<T> {
    T run(Connection c) throws SQLException;
}
