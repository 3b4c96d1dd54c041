package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.Provisioning;
import dev.converge.time.EngineClock;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * V10 gives every site, lead, conversation and token a random public id prefixed by its kind:
 * rows that were there before the migration get theirs, and a row inserted afterwards by SQL
 * that does not name the column (as a node of the previous version inserts) gets one from the
 * database. On H2 and PostgreSQL.
 */
class PublicIdColumnsTest {
    private static final Map<String, String> PREFIX = Map.of("pv_site", "site_", "pv_lead", "lead_",
            "pv_conversation", "conv_", "pv_token", "tok_");

    @Test
    void onH2() throws Exception {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            check(store);
        }
    }

    @Test
    void onPostgres() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("pv_public_ids");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4)) {
            check(store);
        }
    }

    private static void check(Store store) throws Exception {
        Flyway.configure().dataSource(store.dataSource()).locations("classpath:db/provisioning/" + store.database())
                .table("pv_schema_history").baselineOnMigrate(true).baselineVersion("0").target("9").load().migrate();
        SiteStore sites = new SiteStore(store);
        // as a node of the previous version writes them: SQL that does not name public_id
        long tenant = store.inTransaction(c -> {
            try (var s = c.createStatement()) {
                s.executeUpdate("INSERT INTO pv_tenant (name, created_at) VALUES ('before', CURRENT_TIMESTAMP)");
                try (ResultSet rs = s.executeQuery("SELECT MAX(id) FROM pv_tenant")) {
                    rs.next();
                    long id = rs.getLong(1);
                    s.executeUpdate("INSERT INTO pv_token (tenant_id, scope, token_hash, label, created_at) VALUES (" + id
                            + ", 'service', 'h1', 'before', CURRENT_TIMESTAMP)");
                    return id;
                }
            }
        });
        long lead = store.inTransaction(c -> {
            try (var s = c.createStatement()) {
                s.executeUpdate("INSERT INTO pv_lead (tenant_id, name, email, status, created_at, updated_at) VALUES ("
                        + tenant + ", 'Ada', 'ada@example.com', 'lead', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
                try (ResultSet rs = s.executeQuery("SELECT MAX(id) FROM pv_lead")) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
        for (int i = 0; i < 3; i++) {
            int n = i;
            store.inTransaction(c -> sites.insert(c, tenant, lead, "before-" + n, null, null, null, null));
        }
        store.inTransaction(c -> {
            try (var s = c.createStatement()) {
                s.executeUpdate("INSERT INTO pv_conversation (tenant_id, turns, created_at, updated_at) VALUES (" + tenant
                        + ", 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
            }
            return null;
        });

        Provisioning.migrate(store);
        store.inTransaction(c -> sites.insert(c, tenant, lead, "after", null, null, null, null));

        List<String> all = new ArrayList<>();
        for (var e : PREFIX.entrySet()) {
            List<String> ids = store.withConnection(c -> {
                List<String> out = new ArrayList<>();
                try (var s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT public_id FROM " + e.getKey())) {
                    while (rs.next()) {
                        out.add(rs.getString(1));
                    }
                }
                return out;
            });
            assertThat(ids).as(e.getKey()).isNotEmpty().allMatch(id -> id.matches(e.getValue() + "[0-9a-f]{32}"));
            all.addAll(ids);
        }
        assertThat(all).as("every public id differs").doesNotHaveDuplicates();
        assertThat(all.stream().filter(id -> id.startsWith("site_"))).as("three before, one after").hasSize(4);
    }
}
