package dev.converge.provisioning.api;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.SqlWork;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The whole service (simulated leaves, SMTP, H2, a working node) behind a real API server on a free port. */
public final class ApiHarness implements AutoCloseable {
    private static final AtomicInteger NAMES = new AtomicInteger();

    public final ProvisioningFixture fixture;
    public final ApiServer server;
    public final ApiClient client;

    public ApiHarness() {
        this(Duration.ofDays(14), ApiOptions.defaults());
    }

    public ApiHarness(Duration trialWindow, ApiOptions options) {
        this(trialWindow, options, List.of());
    }

    public ApiHarness(Duration trialWindow, ApiOptions options, List<ApiExtension> extensions) {
        this(new ProvisioningFixture(trialWindow), options, extensions);
    }

    public ApiHarness(ProvisioningFixture fixture, ApiOptions options, List<ApiExtension> extensions) {
        this.fixture = fixture;
        try {
            this.server = ApiServer.start(fixture.service(), options, extensions);
        } catch (RuntimeException e) {
            fixture.close();
            throw e;
        }
        this.client = new ApiClient(server.port());
    }

    public Provisioning service() {
        return fixture.service();
    }

    public Tenants.Created tenant() {
        return service().tenants().create("tenant-" + NAMES.incrementAndGet());
    }

    /** Another token of the tenant, of {@code scope}. */
    public String token(Tenants.Created tenant, Scope scope) {
        return service().tenants().credentials().issue(tenant.tenant().id(), scope, null, "test").token();
    }

    /** An operator token. */
    public String operatorToken() {
        return service().tenants().credentials().issueOperator(null, "test").token();
    }

    /** A new lead of the tenant, created through the API; its public id. */
    public String lead(String token) {
        ApiClient.Reply r = client.post("/v1/leads", token, "{\"name\":\"Ada\",\"email\":\"ada@example.com\"}");
        if (r.status() != 201) {
            throw new AssertionError("lead not created: " + r);
        }
        return r.json().get("id").asText();
    }

    public static String siteBody(String leadId, String subdomain) {
        return "{\"lead_id\":\"" + leadId + "\",\"subdomain\":\"" + subdomain + "\"}";
    }

    /** The database id of the site with this public id (for tests that look into the tables). */
    public long siteDbId(String publicId) {
        return count("SELECT id FROM pv_site WHERE public_id = ?", publicId);
    }

    /** A unique subdomain for this run (subdomains are global across tenants). */
    public static String subdomain(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet();
    }

    public <T> T sql(SqlWork<T> work) {
        return service().store().withConnection(work);
    }

    public long count(String sql, Object... args) {
        return sql(c -> {
            try (var ps = c.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i]);
                }
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    public int update(String sql, Object... args) {
        return sql(c -> {
            try (var ps = c.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i]);
                }
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            fixture.close();
        }
    }
}
