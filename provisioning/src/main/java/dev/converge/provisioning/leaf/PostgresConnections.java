package dev.converge.provisioning.leaf;

import dev.converge.ledger.LeafRejected;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Opens autocommit connections for the PostgreSQL leaf with connect and socket timeouts, so a hung
 * server costs a bounded wait. A failure to connect means nothing was sent: a transient rejection,
 * except bad credentials, which retrying cannot fix. Messages carry the SQLState, never the URL.
 */
final class PostgresConnections {
    private final String leaf;
    private final PostgresLeafConfig config;

    PostgresConnections(String leaf, PostgresLeafConfig config) {
        this.leaf = leaf;
        this.config = config;
    }

    Connection open() {
        Properties props = new Properties();
        props.setProperty("user", config.user());
        if (config.password() != null) {
            props.setProperty("password", config.password().reveal());
        }
        props.setProperty("connectTimeout", String.valueOf(config.connectTimeout().toSeconds()));
        props.setProperty("loginTimeout", String.valueOf(config.connectTimeout().toSeconds()));
        props.setProperty("socketTimeout", String.valueOf(config.socketTimeout().toSeconds()));
        props.setProperty("ApplicationName", "converge-postgres-leaf");
        try {
            Connection connection = DriverManager.getConnection(config.jdbcUrl(), props);
            connection.setAutoCommit(true);
            return connection;
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            boolean badCredentials = state.startsWith("28");
            throw new LeafRejected(leaf, "could not connect to PostgreSQL (" + state + ")", 0, !badCredentials, null, e);
        }
    }
}
