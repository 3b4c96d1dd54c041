package dev.converge.provisioning.api;

import dev.converge.dashboard.Dashboard;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.site.SiteFailure;
import dev.converge.provisioning.site.SiteState;
import dev.converge.store.Store;
import dev.converge.store.Sql;
import io.javalin.http.Context;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The service's own page on the dashboard: every tenant's sites, the newest first, with their
 * state, failure code, the resources the ledger holds for each, and their flows; paged by id and
 * filtered by tenant and state (both indexed). Never read: a site's receipt secrets or a ledger
 * entry's data.
 */
final class DashboardSites {
    static final int PAGE = 50;

    private final Store store;

    private DashboardSites(Store store) {
        this.store = store;
    }

    static Dashboard.Page page(ProvisioningService service) {
        DashboardSites sites = new DashboardSites(service.store());
        return new Dashboard.Page("sites", "Sites", sites::answer, "dev/converge/provisioning/dashboard/sites.js");
    }

    private void answer(Context ctx) {
        String state = param(ctx, "state");
        if (state != null) {
            try {
                SiteState.fromSql(state);
            } catch (IllegalArgumentException e) {
                throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "state", "is not a site state");
            }
        }
        List<Map<String, Object>> items = sites(longParam(ctx, "tenant_id"), state, longParam(ctx, "before"));
        items.forEach(DashboardSites::failureCode);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("items", items);
        out.put("page", PAGE);
        out.put("states", store.withConnection(this::byState));
        ctx.json(out);
    }

    private Map<String, Long> byState(Connection c) throws SQLException {
        Map<String, Long> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT state, COUNT(*) AS n FROM pv_site GROUP BY state");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString("state"), rs.getLong("n"));
            }
        }
        return out;
    }

    /**
     * Sites of every tenant, the newest first, ids below {@code before} when given; filtered by
     * tenant and state, each may be null. Each carries the resources the ledger holds for it, read
     * in one query on the ledger's subject index.
     */
    List<Map<String, Object>> sites(Long tenantId, String state, Long before) {
        StringBuilder sql = new StringBuilder("SELECT s.id, s.tenant_id, t.name AS tenant, s.subdomain, s.state,"
                + " s.provision_flow_id, s.teardown_flow_id, s.failure, s.created_at, s.updated_at, s.subscription, s.trial_ends_at"
                + " FROM pv_site s JOIN pv_tenant t ON t.id = s.tenant_id WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        if (tenantId != null) {
            sql.append(" AND s.tenant_id = ?");
            args.add(tenantId);
        }
        if (state != null) {
            sql.append(" AND s.state = ?");
            args.add(state);
        }
        if (before != null) {
            sql.append(" AND s.id < ?");
            args.add(before);
        }
        sql.append(" ORDER BY s.id DESC LIMIT ").append(PAGE);
        return store.withConnection(c -> {
            List<Map<String, Object>> sites = rows(c, sql.toString(), args);
            if (sites.isEmpty()) {
                return sites;
            }
            Map<String, List<Map<String, Object>>> bySubject = new LinkedHashMap<>();
            for (Map<String, Object> site : sites) {
                List<Map<String, Object>> resources = new ArrayList<>();
                site.put("resources", resources);
                bySubject.put("site-" + site.get("id"), resources);
            }
            String marks = String.join(", ", Collections.nCopies(bySubject.size(), "?"));
            for (Map<String, Object> e : rows(c, "SELECT subject, kind, natural_key, state, leaf_id FROM cv_ledger"
                    + " WHERE subject IN (" + marks + ") ORDER BY id LIMIT " + (PAGE * 20), new ArrayList<Object>(bySubject.keySet()))) {
                List<Map<String, Object>> resources = bySubject.get(String.valueOf(e.remove("subject")));
                if (resources != null) {
                    resources.add(e);
                }
            }
            return sites;
        });
    }

    /** Adds the stable failure code its tenant sees, beside the full reason the operator reads. */
    private static void failureCode(Map<String, Object> site) {
        SiteState state = SiteState.fromSql(String.valueOf(site.get("state")));
        Object reason = site.get("failure");
        SiteFailure failure = state == SiteState.FAILED || state == SiteState.NEEDS_ATTENTION
                ? SiteFailure.of(state, reason == null ? null : reason.toString()) : null;
        site.put("failure_code", failure == null ? null : failure.code());
    }

    /** Rows as column -> value maps (lower-case names; timestamps as ISO-8601 instants). */
    private static List<Map<String, Object>> rows(Connection c, String sql, List<Object> args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.size(); i++) {
                ps.setObject(i + 1, args.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                var meta = rs.getMetaData();
                List<Map<String, Object>> out = new ArrayList<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        String name = meta.getColumnLabel(i).toLowerCase(Locale.ROOT);
                        String type = meta.getColumnTypeName(i);
                        if (type != null && type.toLowerCase(Locale.ROOT).contains("timestamp")) {
                            Instant at = Sql.instant(rs, name);
                            row.put(name, at == null ? null : at.toString());
                        } else {
                            row.put(name, rs.getObject(i));
                        }
                    }
                    out.add(row);
                }
                return out;
            }
        }
    }

    private static String param(Context ctx, String name) {
        String v = ctx.queryParam(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static Long longParam(Context ctx, String name) {
        String v = param(ctx, name);
        if (v == null) {
            return null;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, name, "must be an id");
        }
    }
}
