package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.converge.provisioning.tenant.Tenants;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A tenant's token never appears in logs, problems, stored idempotent responses or anywhere in the database. */
class SecretsApiTest {

    @Test
    void theTokenIsNeverLoggedStoredOrEchoed() {
        LoggerContext logs = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger root = logs.getLogger(Logger.ROOT_LOGGER_NAME);
        Logger ours = logs.getLogger("dev.converge");
        Level before = ours.getLevel();
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.setContext(logs);
        captured.start();
        root.addAppender(captured);
        ours.setLevel(Level.DEBUG);
        List<String> bodies = new ArrayList<>();
        Tenants.Created t;
        try (ApiHarness api = new ApiHarness()) {
            t = api.tenant();
            String token = t.token();
            String lead = api.lead(token);
            bodies.add(api.client.postSite(token, "s-1", ApiHarness.siteBody(lead, "secret-keeper")).body());
            bodies.add(api.client.postSite(token, "s-1", ApiHarness.siteBody(lead, "secret-keeper")).body());
            bodies.add(api.client.postSite(token, "s-1", ApiHarness.siteBody(lead, "other")).body());
            bodies.add(api.client.postSite(token, "s-2", "{\"lead_id\":999999,\"subdomain\":\"nope\"}").body());
            bodies.add(api.client.postSite(token, "s-3", "{broken").body());
            bodies.add(api.client.postSite(token, null, ApiHarness.siteBody(lead, "x-site")).body());
            bodies.add(api.client.get("/v1/sites/999999", token).body());
            bodies.add(api.client.get("/v1/sites/1", token + "x").body());
            bodies.add(api.client.get("/v1/orphans", token).body());
            api.update("ALTER TABLE pv_site RENAME TO pv_site_away");
            try {
                bodies.add(api.client.postSite(token, "s-4", ApiHarness.siteBody(lead, "fails")).body());
            } finally {
                api.update("ALTER TABLE pv_site_away RENAME TO pv_site");
            }

            List<String> stored = api.sql(c -> {
                List<String> rows = new ArrayList<>();
                try (var st = c.createStatement(); var rs = st.executeQuery(
                        "SELECT idem_key, request_hash, response_body, response_headers FROM pv_idempotency")) {
                    while (rs.next()) {
                        rows.add(rs.getString(1) + rs.getString(2) + rs.getString(3) + rs.getString(4));
                    }
                }
                return rows;
            });
            assertThat(stored).hasSizeGreaterThanOrEqualTo(2).noneMatch(row -> row.contains(token));
            String hash = dev.converge.provisioning.access.Credentials.hash(token);
            assertThat(api.count("SELECT COUNT(*) FROM pv_token WHERE token_hash = ?", hash)).isEqualTo(1);
            assertThat(api.count("SELECT COUNT(*) FROM pv_token WHERE token_hash = ?", token))
                    .as("only the hash is stored").isZero();
        } finally {
            root.detachAppender(captured);
            ours.setLevel(before);
        }
        String token = t.token();
        assertThat(captured.list).as("the run logged something, so the check means something")
                .anyMatch(e -> e.getLevel().isGreaterOrEqual(Level.ERROR));
        for (ILoggingEvent e : captured.list) {
            String text = e.getFormattedMessage() + (e.getThrowableProxy() == null ? ""
                    : ThrowableProxyUtil.asString(e.getThrowableProxy()));
            assertThat(text).as(e.getLoggerName()).doesNotContain(token).doesNotContain(token.substring(4));
        }
        assertThat(bodies).hasSize(10).noneMatch(b -> b.contains(token.substring(4)));
    }
}
