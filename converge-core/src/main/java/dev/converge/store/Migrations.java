package dev.converge.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * Runs the engine's migrations. Apart from {@link Store} so that Flyway (an optional dependency)
 * is loaded only where the engine migrates its own schema.
 *
 * <p>On PostgreSQL a start on a schema that already records every migration of this build, each
 * one successful, does not run Flyway: loading it and reading every script to find nothing to do
 * cost a cold JVM about a third of a CPU-second, on every node start and every command that opens
 * the store. The build lists its versions beside the scripts ({@code <location>.versions}, checked
 * against the scripts by a test). Anything else goes through Flyway as before: a fresh database, a
 * version not yet applied, a failed one on record, or no list. A node of an earlier build on a newer
 * schema finds its own versions there and starts, as Flyway let it (later versions are ignored). What
 * the shortcut leaves out is Flyway's check of applied scripts' checksums, which the start that
 * applies a migration still makes.
 */
final class Migrations {
    private Migrations() {
    }

    /** Brings the schema up to this build's migrations; false when it already was (Flyway not run). */
    static boolean apply(DataSource dataSource, String location, String historyTable, String schema) {
        if (current(dataSource, location, historyTable, schema)) {
            return false;
        }
        try {
            Class.forName("org.flywaydb.core.Flyway", false, Migrations.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("migrating the engine's schema needs org.flywaydb:flyway-core on the"
                    + " classpath (and flyway-database-postgresql for PostgreSQL), or run " + location
                    + " with your own migration tool");
        }
        var flyway = Flyway.configure();
        if (schema != null) {
            // the schema is created if missing, the history table goes in it, and so do the unqualified DDL's tables
            flyway = flyway.schemas(schema).defaultSchema(schema).createSchemas(true);
        }
        flyway
                .dataSource(dataSource)
                .locations(location)
                .table(historyTable)
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        return true;
    }

    /**
     * Whether the PostgreSQL schema records every version this build bundles at {@code location},
     * and no failed one; false when that cannot be told (another database, no list, no record yet).
     */
    static boolean current(DataSource dataSource, String location, String historyTable, String schema) {
        String prefix = "classpath:";
        if (!location.startsWith(prefix) || !location.endsWith("/postgresql")) {
            return false;
        }
        Set<String> bundled = bundledVersions(location.substring(prefix.length()));
        if (bundled.isEmpty()) {
            return false;
        }
        String table = (schema == null ? "" : quoted(schema) + ".") + quoted(historyTable);
        try (Connection c = dataSource.getConnection()) {
            if (!"PostgreSQL".equals(c.getMetaData().getDatabaseProductName())) {
                return false;
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
                ps.setString(1, table);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next() || !rs.getBoolean(1)) {
                        return false;
                    }
                }
            }
            Set<String> applied = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT version, success FROM " + table);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!rs.getBoolean(2)) {
                        return false;
                    }
                    applied.add(rs.getString(1));
                }
            }
            return applied.containsAll(bundled);
        } catch (SQLException e) {
            return false; // Flyway, run next, reports what is wrong
        }
    }

    /** The versions listed in {@code <directory>.versions} on the classpath, one a line; empty without the list. */
    static Set<String> bundledVersions(String directory) {
        Set<String> out = new HashSet<>();
        try (InputStream in = Migrations.class.getClassLoader().getResourceAsStream(directory + ".versions")) {
            if (in == null) {
                return out;
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank()) {
                    out.add(line.strip());
                }
            }
        } catch (IOException e) {
            out.clear();
        }
        return out;
    }

    private static String quoted(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
