package dev.converge.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.flow.Harness;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The hot lookups of flows, teardown, tokens and the reaper are served by an index on both stores. */
class LookupIndexesTest {

    static Set<String> indexedColumns(Store store, String table) {
        return store.withConnection(c -> {
            DatabaseMetaData md = c.getMetaData();
            String name = md.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
            Set<String> out = new HashSet<>();
            // the leading column of every index of the table, with the index name
            try (ResultSet rs = md.getIndexInfo(null, null, name, false, false)) {
                while (rs.next()) {
                    if (rs.getShort("ORDINAL_POSITION") == 1) {
                        out.add(rs.getString("INDEX_NAME").toLowerCase(Locale.ROOT) + ":"
                                + rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                    }
                }
            }
            return out;
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void theHotLookupsHaveTheirIndexes(String kind) {
        try (Harness h = new Harness(kind)) {
            assertThat(indexedColumns(h.store(), "cv_batch")).contains("cv_batch_flow:flow_id");
            assertThat(indexedColumns(h.store(), "cv_ledger")).contains("cv_ledger_subject:subject");
            assertThat(indexedColumns(h.store(), "cv_token")).contains("cv_token_subject:pool",
                    "cv_token_owner_job:owner_job_id",
                    kind.equals("h2") ? "cv_token_checked_out:state" : "cv_token_checked_out:id");
        }
    }
}
