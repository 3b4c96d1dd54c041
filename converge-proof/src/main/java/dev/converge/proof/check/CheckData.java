package dev.converge.proof.check;

import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import dev.converge.store.Store;
import dev.converge.store.Sql;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What our database says, read once for a check: sites, leads, ledger entries, tokens, overdue flows. */
record CheckData(Map<Long, Site> sites, Map<Long, String> leadStatus, List<LedgerEntry> ledger,
        List<String> halfUsedTokens, List<String> overdueFlows, List<String> failedUnrun) {

    static CheckData load(Store store) {
        return store.withConnection(c -> {
            Map<Long, Site> sites = new LinkedHashMap<>();
            Map<Long, String> leads = new HashMap<>();
            List<LedgerEntry> ledger = new ArrayList<>();
            List<String> tokens = new ArrayList<>();
            List<String> overdue = new ArrayList<>();
            List<String> failedUnrun = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                try (ResultSet rs = st.executeQuery("SELECT id, tenant_id, lead_id, subdomain, template, plan, state, "
                        + "provision_flow_id, teardown_flow_id, created_at, updated_at, failure, subscription, trial_ends_at, "
                        + "subscribed_at, public_id FROM pv_site ORDER BY id")) {
                    while (rs.next()) {
                        sites.put(rs.getLong("id"), new Site(rs.getLong("id"), rs.getLong("tenant_id"), rs.getLong("lead_id"),
                                rs.getString("subdomain"), rs.getString("template"), rs.getString("plan"),
                                SiteState.fromSql(rs.getString("state")), Sql.nullableLong(rs, "provision_flow_id"),
                                Sql.nullableLong(rs, "teardown_flow_id"), null, null, rs.getString("failure"),
                                Sql.instant(rs, "created_at"), Sql.instant(rs, "updated_at"),
                                dev.converge.provisioning.site.Subscription.fromSql(rs.getString("subscription")),
                                Sql.instant(rs, "trial_ends_at"), Sql.instant(rs, "subscribed_at"),
                                rs.getString("public_id"), null));
                    }
                }
                try (ResultSet rs = st.executeQuery("SELECT id, status FROM pv_lead")) {
                    while (rs.next()) {
                        leads.put(rs.getLong(1), rs.getString(2));
                    }
                }
                try (ResultSet rs = st.executeQuery("SELECT id, kind, natural_key, flow_id, subject, state, safety, leaf_id, "
                        + "generation, owner_job_id, owner_epoch, last_error, created_at, updated_at, confirmed_at "
                        + "FROM cv_ledger ORDER BY id")) {
                    while (rs.next()) {
                        ledger.add(entry(rs));
                    }
                }
                try (ResultSet rs = st.executeQuery("SELECT pool, subject, state, used_at FROM cv_token "
                        + "WHERE state = 'checked_out'")) {
                    while (rs.next()) {
                        tokens.add("token of " + rs.getString("subject") + " in " + rs.getString("pool")
                                + " left checked out" + (rs.getObject("used_at") != null ? " after its use started" : ""));
                    }
                }
                try (ResultSet rs = st.executeQuery("SELECT id, kind, subject FROM cv_flow WHERE state IN "
                        + "('running', 'compensating') AND deadline < CURRENT_TIMESTAMP")) {
                    while (rs.next()) {
                        overdue.add(rs.getString("kind") + " flow " + rs.getLong("id") + " of " + rs.getString("subject")
                                + " is past its deadline and has not ended");
                    }
                }
                // a job failed for good without its handler having run: the node that leased it had no
                // handler for its type (a fleet of mixed versions); its work was lost, not done
                try (ResultSet rs = st.executeQuery("SELECT id, kind, last_error FROM cv_job WHERE state = 'failed' "
                        + "AND last_error LIKE 'no handler for job type%' ORDER BY id")) {
                    while (rs.next()) {
                        String error = rs.getString("last_error");
                        failedUnrun.add("job " + rs.getLong("id") + " (" + rs.getString("kind") + ") failed without "
                                + "running: " + (error.length() > 160 ? error.substring(0, 160) + "..." : error));
                    }
                }
            }
            return new CheckData(sites, leads, ledger, tokens, overdue, failedUnrun);
        });
    }

    private static LedgerEntry entry(ResultSet rs) throws SQLException {
        return new LedgerEntry(rs.getLong("id"), rs.getString("kind"), rs.getString("natural_key"),
                Sql.nullableLong(rs, "flow_id"), rs.getString("subject"), LedgerState.fromSql(rs.getString("state")),
                RepetitionSafety.fromSql(rs.getString("safety")), rs.getString("leaf_id"), Map.of(),
                rs.getInt("generation"), Sql.nullableLong(rs, "owner_job_id"), Sql.nullableLong(rs, "owner_epoch"),
                rs.getString("last_error"), Sql.instant(rs, "created_at"), Sql.instant(rs, "updated_at"),
                Sql.instant(rs, "confirmed_at"));
    }
}
