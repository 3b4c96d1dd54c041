package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.provisioning.ExpiredPurge;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.recurring.RecurringView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** {@code GET /v1/ops/recurring}: the service's own recurring job as an operator sees it, and only an operator. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RecurringApiTest {
    private ApiHarness api;

    @BeforeAll
    void start() {
        api = new ApiHarness(new ProvisioningFixture(Duration.ofDays(14), Duration.ofSeconds(1)), ApiOptions.defaults(),
                List.of());
    }

    @AfterAll
    void stop() {
        api.close();
    }

    @Test
    void anOperatorSeesThePurgeJobWithItsNextSlotAndThenItsRuns() {
        String operator = api.operatorToken();
        ApiClient.Reply first = api.client.get("/v1/ops/recurring", operator);
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.header("Content-Type")).startsWith("application/json");
        JsonNode purge = purgeJob(first.json());
        assertThat(purge.get("job_type").asText()).isEqualTo(ExpiredPurge.NAME);
        assertThat(purge.get("queue").asText()).isEqualTo("default");
        assertThat(purge.get("schedule").asText()).isEqualTo("every PT1S");
        assertThat(purge.get("missed_slots").asText()).isEqualTo("skip");
        assertThat(purge.get("skipped").isIntegralNumber()).isTrue();
        assertThat(Instant.parse(purge.get("next_slot").asText())).isAfter(Instant.now().minusSeconds(5));
        for (String field : List.of("last_slot", "last_job_id")) {
            assertThat(purge.has(field)).as(field + " is present, null before the first round").isTrue();
        }

        // a slot that ran: its job is named, and the next slot is after it
        await().atMost(Duration.ofSeconds(15)).until(() -> !purgeJob(api.client.get("/v1/ops/recurring", operator).json())
                .get("last_job_id").isNull());
        JsonNode ran = purgeJob(api.client.get("/v1/ops/recurring", operator).json());
        long jobId = ran.get("last_job_id").asLong();
        assertThat(api.count("SELECT COUNT(*) FROM cv_job WHERE id = ? AND kind = ?", jobId, ExpiredPurge.NAME))
                .isEqualTo(1);
        Instant lastSlot = Instant.parse(ran.get("last_slot").asText());
        assertThat(Instant.parse(ran.get("next_slot").asText())).isAfter(lastSlot);
        await().atMost(Duration.ofSeconds(15)).until(() -> api.count(
                "SELECT COUNT(*) FROM cv_job WHERE id = ? AND state = 'succeeded'", jobId) == 1);
    }

    @Test
    void anApiOnlyNodeDeclaresItAndEachSlotIsStillEnqueuedOnce() {
        // a second node on the same database that works no queue: it declares the job and takes part in deciding slots
        try (Provisioning apiOnly = Provisioning.start(api.service().store(), api.service().config(),
                NodeOptions.defaults().withConcurrency(0).withoutMaintenance().withPurgeEvery(Duration.ofSeconds(1)))) {
            assertThat(apiOnly.engine().recurring().list()).extracting(RecurringView::name)
                    .containsExactlyInAnyOrder(ExpiredPurge.NAME, dev.converge.provisioning.site.TrialDeadlines.NAME,
                            dev.converge.provisioning.site.AdmitSites.NAME, dev.converge.provisioning.OrphanRemoval.NAME);
            long before = api.count("SELECT COUNT(*) FROM cv_job WHERE kind = ?", ExpiredPurge.NAME);
            await().atMost(Duration.ofSeconds(20)).until(() -> api.count(
                    "SELECT COUNT(*) FROM cv_job WHERE kind = ?", ExpiredPurge.NAME) >= before + 3);
        }
        assertThat(api.count("SELECT COUNT(DISTINCT payload) FROM cv_job WHERE kind = ?", ExpiredPurge.NAME))
                .as("one job per slot").isEqualTo(api.count("SELECT COUNT(*) FROM cv_job WHERE kind = ?", ExpiredPurge.NAME));
    }

    @Test
    void noOtherScopeMayReadIt() {
        Tenants.Created tenant = api.tenant();
        assertThat(api.client.get("/v1/ops/recurring", null).status()).isEqualTo(401);
        for (Scope scope : List.of(Scope.SERVICE, Scope.AGENT, Scope.APPROVER)) {
            ApiClient.Reply r = api.client.get("/v1/ops/recurring", api.token(tenant, scope));
            assertThat(r.status()).as(scope + ": " + r).isEqualTo(403);
            assertThat(r.problem()).isEqualTo("insufficient-scope");
            assertThat(r.body()).doesNotContain(ExpiredPurge.NAME);
        }
    }

    private static JsonNode purgeJob(JsonNode body) {
        for (JsonNode item : body.get("items")) {
            if (item.get("name").asText().equals(ExpiredPurge.NAME)) {
                return item;
            }
        }
        throw new AssertionError("no " + ExpiredPurge.NAME + " in " + body);
    }
}
