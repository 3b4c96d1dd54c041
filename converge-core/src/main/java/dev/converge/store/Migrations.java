package dev.converge.store;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * Runs the engine's migrations. Apart from {@link Store} so that Flyway (an optional dependency)
 * is loaded only where the engine migrates its own schema.
 */
final class Migrations {
    private Migrations() {
    }

    static void apply(DataSource dataSource, String location, String historyTable, String schema) {
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
    }
}
