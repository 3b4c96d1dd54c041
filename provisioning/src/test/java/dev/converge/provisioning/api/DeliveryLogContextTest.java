package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.ResourceExists;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Every line logged while a site's step runs carries the site and its tenant beside the job, so
 * an operator finds a site's story with one search of the JSON log; and none of it stays on the
 * worker thread for the next delivery.
 */
class DeliveryLogContextTest {

    @Test
    void aSiteStepsLinesCarryTheSiteAndTenantAndNothingLeaksToTheNextDelivery() {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        root.addAppender(lines);
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created t = api.tenant();
            String subdomain = ApiHarness.subdomain("mdc");
            // someone else's repository holds the name: the flow fails and its report step logs a warning
            takeAtTheGitHost(api, subdomain);
            String lead = api.lead(t.token());
            String id = api.client.postSite(t.token(), "mdc-1", ApiHarness.siteBody(lead, subdomain)).json()
                    .get("site_id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    api.client.get("/v1/sites/" + id, t.token()).json().get("state").asText().equals("failed"));
            await().atMost(Duration.ofSeconds(10)).until(() -> failureLines(lines, api.siteDbId(id)).size() > 0);

            ILoggingEvent failure = failureLines(lines, api.siteDbId(id)).get(0);
            assertThat(failure.getMDCPropertyMap()).containsEntry("site_id", Long.toString(api.siteDbId(id)))
                    .containsEntry("tenant_id", Long.toString(t.tenant().id())).containsEntry("job_type", "site.report-failure").containsKey("job_id");
            // lines of deliveries that are not a site's step carry no site: the context ended with its delivery
            assertThat(lines.list.stream().filter(e -> e.getMDCPropertyMap().containsKey("job_id"))
                    .filter(e -> !e.getMDCPropertyMap().getOrDefault("job_type", "").startsWith("site."))
                    .filter(e -> e.getMDCPropertyMap().containsKey("site_id"))).isEmpty();
        } finally {
            root.detachAppender(lines);
        }
    }

    /** The setup's own create, resent when the simulated git host is slow to answer on a busy machine. */
    private static void takeAtTheGitHost(ApiHarness api, String subdomain) {
        for (int attempt = 1; ; attempt++) {
            try {
                api.service().resources().get(SiteResources.REPOSITORY)
                        .create(new CreateRequest(subdomain, null, null, Map.of()));
                return;
            } catch (ResourceExists e) {
                return; // an earlier, slow attempt created it
            } catch (AmbiguousOutcome e) {
                if (attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private static List<ILoggingEvent> failureLines(ListAppender<ILoggingEvent> lines, long siteId) {
        synchronized (lines.list) {
            return lines.list.stream().filter(e -> e.getFormattedMessage().startsWith("site " + siteId + " of tenant"))
                    .toList();
        }
    }
}
