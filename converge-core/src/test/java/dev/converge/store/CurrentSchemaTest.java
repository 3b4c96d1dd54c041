package dev.converge.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.converge.fixture.ScratchDatabase;
import java.io.File;
import java.net.URL;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A node starting on a schema that already holds every migration of its build does not run Flyway
 * (loading it and reading every script costs a cold JVM about a third of a CPU-second); anything
 * else, a missing version or a failed one, still goes through Flyway and its checks.
 */
class CurrentSchemaTest {
    private static final Pattern VERSIONED = Pattern.compile("V(\\d+(?:[._]\\d+)*)__.*\\.sql");

    @Test
    void theIndexOfEachBuildsMigrationsListsExactlyTheScriptsBesideIt() throws Exception {
        for (String database : List.of("postgresql")) {
            URL dir = getClass().getClassLoader().getResource("db/converge/" + database);
            assertThat(dir).as("migrations of %s", database).isNotNull();
            TreeSet<String> scripts = new TreeSet<>();
            for (String name : new File(dir.toURI()).list()) {
                Matcher m = VERSIONED.matcher(name);
                assertThat(m.matches()).as("%s is a versioned migration", name).isTrue();
                scripts.add(m.group(1).replace('_', '.'));
            }
            assertThat(Migrations.bundledVersions("db/converge/" + database)).as("db/converge/%s.versions", database)
                    .containsExactlyInAnyOrderElementsOf(scripts);
        }
    }

    @Test
    void aCurrentSchemaIsLeftAloneAndAnythingElseGoesThroughFlyway() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_current_schema");
                HikariDataSource ds = pool(db)) {
            String location = "classpath:db/converge/postgresql";
            assertThat(Migrations.apply(ds, location, Store.SCHEMA_HISTORY_TABLE, null))
                    .as("a fresh database is migrated by Flyway").isTrue();
            assertThat(Migrations.apply(ds, location, Store.SCHEMA_HISTORY_TABLE, null))
                    .as("every migration of this build is recorded: nothing to run").isFalse();

            // a version this build bundles is missing from the record: Flyway decides (and applies it again)
            String latest = Migrations.bundledVersions("db/converge/postgresql").stream()
                    .max((a, b) -> Arrays.compare(parts(a), parts(b))).orElseThrow();
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE kept_aside AS SELECT * FROM " + Store.SCHEMA_HISTORY_TABLE + " WHERE version = '"
                        + latest + "'");
                st.execute("DELETE FROM " + Store.SCHEMA_HISTORY_TABLE + " WHERE version = '" + latest + "'");
            }
            assertThat(Migrations.current(ds, location, Store.SCHEMA_HISTORY_TABLE, null))
                    .as("version %s is not recorded", latest).isFalse();
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("INSERT INTO " + Store.SCHEMA_HISTORY_TABLE + " SELECT * FROM kept_aside");
            }
            assertThat(Migrations.current(ds, location, Store.SCHEMA_HISTORY_TABLE, null)).isTrue();

            // a failed migration on record: Flyway runs, and its validation refuses to go on
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("UPDATE " + Store.SCHEMA_HISTORY_TABLE + " SET success = false WHERE version = '" + latest + "'");
            }
            assertThat(Migrations.current(ds, location, Store.SCHEMA_HISTORY_TABLE, null)).isFalse();
            assertThatThrownBy(() -> Migrations.apply(ds, location, Store.SCHEMA_HISTORY_TABLE, null))
                    .hasMessageContaining("failed migration to version " + latest);
        }
    }

    @Test
    void aSchemaOfTheApplicationsChoiceIsReadWhereFlywayKeepsItsRecord() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_current_schema_named");
                HikariDataSource ds = pool(db)) {
            String location = "classpath:db/converge/postgresql";
            assertThat(Migrations.current(ds, location, Store.SCHEMA_HISTORY_TABLE, "Converge Tables")).isFalse();
            assertThat(Migrations.apply(ds, location, Store.SCHEMA_HISTORY_TABLE, "Converge Tables")).isTrue();
            assertThat(Migrations.current(ds, location, Store.SCHEMA_HISTORY_TABLE, "Converge Tables")).isTrue();
            assertThat(Migrations.current(ds, location, Store.SCHEMA_HISTORY_TABLE, null))
                    .as("the connection's own schema holds no record").isFalse();
        }
    }

    private static int[] parts(String version) {
        return Arrays.stream(version.split("\\.")).mapToInt(Integer::parseInt).toArray();
    }

    private static HikariDataSource pool(ScratchDatabase db) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setMaximumPoolSize(2);
        return new HikariDataSource(config);
    }
}
