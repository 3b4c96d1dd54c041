package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.flow.FlowState;
import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.ledger.LedgerState;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.queue.JobState;
import dev.converge.token.TokenState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A person's hand over HTTP: retries and settlements by the operator (and a site retry by the
 * tenant's approver), each fenced (two at once apply once), each with a required reason, each
 * recorded with who and why, in the site's history too.
 */
class HandApiTest {

    @Test
    void aPersonRetriesAndSettlesWhatTheMachineCouldNotAndEveryActionIsRecorded() throws Exception {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created tenant = api.tenant();
            String operator = api.operatorToken();
            String approver = api.token(tenant, Scope.APPROVER);
            String agent = api.token(tenant, Scope.AGENT);
            long tenantId = tenant.tenant().id();
            String lead = api.lead(tenant.token());

            // the hosting leaf refuses every create: the flow fails and compensates
            api.fixture.leaves().leafSim().faults().add(FaultRule.of(LeafSim.HOSTING, "create", FaultType.ERROR_BEFORE));
            ApiClient.Reply created = api.client.postSite(tenant.token(), "hand-1",
                    ApiHarness.siteBody(lead, ApiHarness.subdomain("hand")));
            assertThat(created.status()).as(created.toString()).isEqualTo(202);
            String siteId = created.json().get("site_id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() -> state(api, tenantId, siteId) == SiteState.FAILED);
            api.fixture.leaves().leafSim().faults().clear();
            Site site = api.service().sites().get(tenantId, api.siteDbId(siteId)).orElseThrow();
            long flowId = site.provisionFlowId();

            // as after a compensation that gave up: the flow and the site need a person
            api.update("UPDATE cv_flow SET state = 'needs_attention', attention = 'a compensation gave up' WHERE id = ?", flowId);
            api.update("UPDATE cv_compensation SET state = 'failed' WHERE id = (SELECT MAX(id) FROM cv_compensation "
                    + "WHERE flow_id = ?)", flowId);
            api.update("UPDATE pv_site SET state = 'needs_attention' WHERE public_id = ?", siteId);

            String flowRetry = "/v1/ops/flows/" + flowId + "/retries";
            assertThat(api.client.post(flowRetry, operator, "{}").status()).as("a reason is required").isEqualTo(422);
            assertThat(api.client.post(flowRetry, operator, "{\"reason\":\"  \"}").status()).isEqualTo(422);
            assertThat(api.client.post(flowRetry, agent, "{\"reason\":\"x\"}").status()).isEqualTo(403);
            assertThat(api.client.post(flowRetry, approver, "{\"reason\":\"x\"}").status()).isEqualTo(403);
            assertThat(api.client.post("/v1/ops/flows/999999/retries", operator, "{\"reason\":\"x\"}").status())
                    .isEqualTo(404);

            List<ApiClient.Reply> both = twoAtOnce(() -> api.client.post(flowRetry, operator,
                    "{\"reason\":\"the hosting leaf is back\"}"));
            assertThat(both).allMatch(r -> r.status() == 200);
            assertThat(both).extracting(r -> r.json().get("applied").asBoolean()).containsExactlyInAnyOrder(true, false);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    api.service().engine().flows().get(flowId).orElseThrow().state() == FlowState.FAILED
                            && state(api, tenantId, siteId) == SiteState.FAILED);
            assertThat(api.service().engine().flows().history(flowId)).anySatisfy(e -> {
                assertThat(e.actor()).startsWith("operator:token-");
                assertThat(e.reason()).contains("the hosting leaf is back");
            });

            // an approver retries its own site only when it failed or needs attention: an active one is left alone
            String active = api.client.postSite(tenant.token(), "hand-2", ApiHarness.siteBody(lead,
                    ApiHarness.subdomain("hand-ok"))).json().get("site_id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() -> state(api, tenantId, active) == SiteState.ACTIVE);
            ApiClient.Reply notNow = api.client.post("/v1/sites/" + active + "/retries", approver, "{\"reason\":\"again\"}");
            assertThat(notNow.status()).isEqualTo(200);
            assertThat(notNow.json().get("applied").asBoolean()).isFalse();
            assertThat(notNow.json().get("detail").asText()).contains("neither failed nor needs_attention");
            Tenants.Created other = api.tenant();
            assertThat(api.client.post("/v1/sites/" + siteId + "/retries", api.token(other, Scope.APPROVER),
                    "{\"reason\":\"not mine\"}").status()).isEqualTo(404);

            // a ledger entry the machine could not decide
            long entry = api.sql(c -> {
                try (var ps = c.prepareStatement("INSERT INTO cv_ledger (kind, natural_key, flow_id, subject, state, safety, "
                        + "created_at, updated_at) VALUES ('hosting', 'hand-left', ?, ?, 'uncertain', 'unsafe', "
                        + "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)", new String[] {"id"})) {
                    ps.setLong(1, flowId);
                    ps.setString(2, site.subject());
                    ps.executeUpdate();
                    try (var rs = ps.getGeneratedKeys()) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }
            });
            String settle = "/v1/ops/ledger-entries/" + entry + "/settlements";
            assertThat(api.client.post(settle, operator, "{\"exists\":true,\"reason\":\"seen\"}").status())
                    .as("exists needs the leaf's id").isEqualTo(422);
            List<ApiClient.Reply> settled = twoAtOnce(() -> api.client.post(settle, operator,
                    "{\"exists\":true,\"leaf_id\":\"srv-77\",\"reason\":\"found in the hosting console\"}"));
            assertThat(settled).extracting(r -> r.json().get("applied").asBoolean()).containsExactlyInAnyOrder(true, false);
            var e = api.service().engine().ledger().entry(entry).orElseThrow();
            assertThat(e.state()).isEqualTo(LedgerState.CONFIRMED);
            assertThat(e.leafId()).isEqualTo("srv-77");

            // a welcome token whose use is unknown: its owner (a finished job) is gone
            var token = api.service().engine().tokens().forSubject(SiteJobs.WELCOME_POOL, site.subject()).orElseThrow();
            long ownerJob = api.count("SELECT MAX(id) FROM cv_job WHERE state = 'succeeded'");
            api.update("UPDATE cv_token SET state = 'checked_out', owner = 'gone', owner_job_id = ?, owner_epoch = 1, "
                    + "checked_out_at = created_at, used_at = created_at WHERE id = ?", ownerJob, token.id());
            ApiClient.Reply unused = api.client.post("/v1/ops/tokens/" + token.id() + "/settlements", operator,
                    "{\"used\":false,\"reason\":\"the mail server never got it\"}");
            assertThat(unused.json().get("applied").asBoolean()).as(unused.toString()).isTrue();
            assertThat(api.service().engine().tokens().get(token.id()).orElseThrow().state()).isEqualTo(TokenState.AVAILABLE);

            // a job that failed for good and stands alone: the failure report of the flow
            long report = api.count("SELECT MAX(id) FROM cv_job WHERE kind = 'site.report-failure'");
            api.update("UPDATE cv_job SET state = 'failed', last_error = 'the events table was locked' WHERE id = ?", report);
            List<ApiClient.Reply> retried = twoAtOnce(() -> api.client.post("/v1/ops/jobs/" + report + "/retries", operator,
                    "{\"reason\":\"the lock is gone\"}"));
            assertThat(retried).extracting(r -> r.json().get("applied").asBoolean()).containsExactlyInAnyOrder(true, false);
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    api.service().engine().job(report).orElseThrow().state() == JobState.SUCCEEDED);
            long step = api.count("SELECT MIN(id) FROM cv_job WHERE flow_id = ?", flowId);
            api.update("UPDATE cv_job SET state = 'failed' WHERE id = ?", step);
            assertThat(api.client.post("/v1/ops/jobs/" + step + "/retries", operator, "{\"reason\":\"x\"}").status())
                    .as("a step of a flow is retried through its flow").isEqualTo(422);

            ApiClient.Reply actions = api.client.get("/v1/ops/actions?site_id=" + siteId, operator);
            assertThat(actions.status()).isEqualTo(200);
            List<String> kinds = new ArrayList<>();
            actions.json().get("items").forEach(a -> {
                kinds.add(a.get("action").asText() + ":" + a.get("applied").asBoolean());
                assertThat(a.get("reason").asText()).isNotBlank();
                assertThat(a.get("actor").asText()).matches("(operator|approver):token-\\d+(@tenant-\\d+)?");
            });
            assertThat(kinds).contains("retry_flow:true", "retry_flow:false",
                    "settle_entry_exists:true", "settle_entry_exists:false", "settle_token_unused:true",
                    "retry_job:true", "retry_job:false");
            assertThat(api.service().events().forSite(api.siteDbId(siteId))).filteredOn(ev -> ev.kind().equals("site.operator_action"))
                    .hasSize(4);
            assertThat(actions.body()).doesNotContain(token.value());
        }
    }

    private static SiteState state(ApiHarness api, long tenantId, String siteId) {
        return api.service().sites().get(tenantId, api.siteDbId(siteId)).orElseThrow().state();
    }

    private static <T> List<T> twoAtOnce(java.util.concurrent.Callable<T> call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CyclicBarrier start = new CyclicBarrier(2);
            List<Future<T>> fs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                fs.add(pool.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : fs) {
                out.add(f.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
