package dev.converge.provisioning.leaf;

import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafCallException;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceExists;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A per-site database on a real PostgreSQL server: the natural key and the leaf id are the
 * database name, the tag is the database comment. {@code CREATE DATABASE} cannot run in a
 * transaction, so creating and tagging are two autocommitted statements, and a crash between them
 * leaves a database without our comment: {@link #find} then reports it with a null tag, which
 * does not prove it ours. If the comment fails while we are still connected, the fresh database
 * is dropped again so that no untagged database is left behind.
 */
public final class PostgresDatabaseLeaf implements LeafDriver {
    public static final String LEAF = "postgres";
    private static final Logger log = LoggerFactory.getLogger(PostgresDatabaseLeaf.class);
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final String SELECT = "SELECT datname, shobj_description(oid, 'pg_database') AS tag, oid"
            + " FROM pg_database";

    private final PostgresLeafConfig config;
    private final PostgresConnections connections;

    public PostgresDatabaseLeaf(PostgresLeafConfig config) {
        this.config = config;
        this.connections = new PostgresConnections(LEAF, config);
    }

    @Override
    public String leaf() {
        return LEAF;
    }

    /**
     * Creates the database in three steps that a crash can interrupt anywhere without leaving an
     * untagged database under the real name: CREATE under a staging name derived from the real one,
     * COMMENT it with our tag, then RENAME it (atomic). A retry finds the staging database and
     * carries on; teardown drops it too.
     *
     * @param idempotencyKey ignored: the unique database name already makes the create idempotent
     */
    @Override
    public LeafResource create(String name, String tag, String idempotencyKey) {
        requireOurName(name);
        if (tag == null || tag.isBlank() || tag.length() > 1000 || tag.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("the tag must be 1..1000 characters without NUL");
        }
        String staging = stagingName(name);
        try (Connection connection = connections.open()) {
            if (!createStaging(connection, name, staging)) {
                // exists: an earlier attempt got this far. Reused only if it carries this very site's tag
                String found = read(SELECT + " WHERE datname = ?", staging).stream().findFirst().map(LeafResource::tag)
                        .orElse(null);
                if (found != null && !found.equals(tag)) {
                    throw new LeafRejected(LEAF, "the staging database of " + name + " carries another tag; it is not "
                            + "ours to use", 0, false, null, null);
                }
                if (found == null) {
                    // a create of ours that died before its comment (no natural key reaches this name): start again
                    dropQuietly(connection, staging);
                    if (!createStaging(connection, name, staging)) {
                        throw new LeafRejected(LEAF, "the staging database of " + name + " came back at once", 0, true,
                                null, null);
                    }
                }
            }
            tagOrUndo(connection, staging, tag);
            try (Statement statement = connection.createStatement()) {
                statement.execute("ALTER DATABASE " + quoted(staging) + " RENAME TO " + quoted(name));
            } catch (SQLException e) {
                throw renameFailed(connection, name, staging, e);
            }
            return new LeafResource(name, name, tag, Map.of("database", name));
        } catch (SQLException e) {
            throw new AmbiguousOutcome(LEAF, "CREATE DATABASE " + name + ": connection failed (" + e.getSQLState() + ")", e);
        }
    }

    /** CREATE DATABASE of the staging name; false if it exists already. */
    private boolean createStaging(Connection connection, String name, String staging) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + quoted(staging));
            return true;
        } catch (SQLException e) {
            if ("42P04".equals(e.getSQLState())) {
                return false;
            }
            throw classifyCreate(name, e);
        }
    }

    /**
     * The staging name of a database: our prefix, then {@code _stg_} and a hash of the real name.
     * Natural names are the prefix and a DNS label ({@code -} as {@code _}), which never starts with
     * {@code _} nor holds {@code __}: no subdomain can name another site's staging database.
     */
    String stagingName(String name) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return config.namePrefix() + "_stg_" + java.util.HexFormat.of().formatHex(digest).substring(0, 24);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private LeafCallException renameFailed(Connection connection, String name, String staging, SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.equals("42P04")) {
            // the real name is taken (by someone else: ours would have been found by lookup first)
            dropQuietly(connection, staging);
            return new ResourceExists(LEAF, name, "database " + name + " already exists");
        }
        return classifyCreate(name, e);
    }

    private static void dropQuietly(Connection connection, String database) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + quoted(database));
        } catch (SQLException ignored) {
            // a staging database left behind carries our tag: reconcile finds it
        }
    }

    /** A database without our comment is returned with a null tag: it may be a crashed create of ours, or not ours. */
    @Override
    public Optional<LeafResource> find(String name) {
        requireName(name);
        return read(SELECT + " WHERE datname = ?", name).stream().findFirst();
    }

    /** Drops it if present; with {@code WITH (FORCE)} on PostgreSQL 13+ so open sessions cannot block teardown. */
    @Override
    public void delete(String name) {
        requireOurName(name);
        try (Connection connection = connections.open(); Statement statement = connection.createStatement()) {
            boolean force = connection.getMetaData().getDatabaseMajorVersion() >= 13;
            statement.execute("DROP DATABASE IF EXISTS " + quoted(name) + (force ? " WITH (FORCE)" : ""));
            // and the staging database of a create that died half-way, if any
            statement.execute("DROP DATABASE IF EXISTS " + quoted(stagingName(name)) + (force ? " WITH (FORCE)" : ""));
            log.debug("dropped database {} if it existed", name);
        } catch (SQLException e) {
            throw new LeafRejected(LEAF, "DROP DATABASE " + name + " failed (" + e.getSQLState() + ")", 0, true, null, e);
        }
    }

    @Override
    public List<LeafResource> list() {
        return read(SELECT + " WHERE left(datname, length(?)) = ? ORDER BY datname", config.namePrefix(),
                config.namePrefix());
    }

    /** Writes our comment on a database that exists; the caller decides first that it is provably ours. */
    public void tag(String name, String tag) {
        requireOurName(name);
        try (Connection connection = connections.open(); Statement statement = connection.createStatement()) {
            statement.execute("COMMENT ON DATABASE " + quoted(name) + " IS "
                    + literal(connection, tag));
        } catch (SQLException e) {
            throw new LeafRejected(LEAF, "COMMENT ON DATABASE " + name + " failed (" + e.getSQLState() + ")", 0, true,
                    null, e);
        }
    }

    private void tagOrUndo(Connection connection, String name, String tag) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("COMMENT ON DATABASE " + quoted(name) + " IS "
                    + literal(connection, tag));
        } catch (SQLException commentFailed) {
            try (Statement undo = connection.createStatement()) {
                undo.execute("DROP DATABASE IF EXISTS " + quoted(name));
            } catch (SQLException dropFailed) {
                commentFailed.addSuppressed(dropFailed);
                throw new AmbiguousOutcome(LEAF, "created " + name + " but could not tag or drop it", commentFailed);
            }
            throw new LeafRejected(LEAF, "created " + name + " but could not tag it; dropped it again ("
                    + commentFailed.getSQLState() + ")", 0, true, null, commentFailed);
        }
    }

    private LeafCallException classifyCreate(String name, SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.equals("42P04") || state.equals("23505")) {
            return new ResourceExists(LEAF, name, "database " + name + " already exists");
        }
        String message = "CREATE DATABASE " + name + " failed (" + state + ")";
        if (state.startsWith("08") || state.equals("57014") || state.startsWith("57P")) {
            return new AmbiguousOutcome(LEAF, message + "; it may have been created", e);
        }
        boolean transientFailure = state.equals("55006") || state.startsWith("53") || state.startsWith("40");
        return new LeafRejected(LEAF, message, 0, transientFailure, null, e);
    }

    private List<LeafResource> read(String sql, String... params) {
        try (Connection connection = connections.open(); PreparedStatement query = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                query.setString(i + 1, params[i]);
            }
            List<LeafResource> found = new ArrayList<>();
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    String name = rows.getString("datname");
                    found.add(new LeafResource(name, name, rows.getString("tag"),
                            Map.of("database", name, "oid", rows.getLong("oid"))));
                }
            }
            return found;
        } catch (SQLException e) {
            throw new LeafRejected(LEAF, "reading pg_database failed (" + e.getSQLState() + ")", 0, true, null, e);
        }
    }

    private void requireOurName(String name) {
        requireName(name);
        if (!name.startsWith(config.namePrefix())) {
            throw new IllegalArgumentException("database " + name + " does not start with our prefix "
                    + config.namePrefix());
        }
    }

    private static void requireName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a database name must match " + NAME + ": " + name);
        }
    }

    /** The driver's own escaping, which follows the server's standard_conforming_strings. */
    private static String literal(Connection connection, String text) throws SQLException {
        return "'" + connection.unwrap(PGConnection.class).escapeLiteral(text) + "'";
    }

    /** Names are validated to [a-z0-9_] first; quoting keeps them exact and never a keyword. */
    private static String quoted(String name) {
        return "\"" + name + "\"";
    }
}
