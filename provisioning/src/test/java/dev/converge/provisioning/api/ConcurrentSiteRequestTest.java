package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Fifty identical {@code POST /v1/sites} (same key, same body) fired together: one site, one
 * provisioning flow, one resource per leaf; every answer a 202 or a 409 "in flight", and every 202
 * byte-identical (the first answer, or its replay).
 */
class ConcurrentSiteRequestTest {
    private static final int REQUESTS = 50;

    @Test
    void fiftyConcurrentIdenticalRequestsMakeOneSite() throws Exception {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created tenant = api.tenant();
            String lead = api.lead(tenant.token());
            String body = ApiHarness.siteBody(lead, "together");
            CyclicBarrier barrier = new CyclicBarrier(REQUESTS);
            ExecutorService pool = Executors.newFixedThreadPool(REQUESTS);
            List<Future<ApiClient.Reply>> futures = new ArrayList<>();
            try {
                for (int i = 0; i < REQUESTS; i++) {
                    futures.add(pool.submit(() -> {
                        barrier.await();
                        return api.client.postSite(tenant.token(), "same-key", body);
                    }));
                }
                List<ApiClient.Reply> replies = new ArrayList<>();
                for (Future<ApiClient.Reply> f : futures) {
                    replies.add(f.get());
                }

                String seen = replies.stream().collect(Collectors.groupingBy(
                        r -> r.status() + " " + r.problem() + (r.header("Idempotency-Replayed") == null ? "" : " replayed"),
                        Collectors.counting())).toString();
                assertThat(replies).as(seen).allSatisfy(r -> assertThat(r.status()).as(r.toString()).isIn(202, 409));
                // and the retries after it: the stored answer, byte for byte
                for (int i = 0; i < 3; i++) {
                    replies.add(api.client.postSite(tenant.token(), "same-key", body));
                }
                assertThat(replies.subList(REQUESTS, replies.size())).allSatisfy(r -> {
                    assertThat(r.status()).isEqualTo(202);
                    assertThat(r.header("Idempotency-Replayed")).isEqualTo("true");
                });
                List<ApiClient.Reply> accepted = replies.stream().filter(r -> r.status() == 202).toList();
                assertThat(accepted).hasSizeGreaterThan(3);
                assertThat(accepted.stream().map(ApiClient.Reply::body).distinct()).as("every 202 byte-identical").hasSize(1);
                assertThat(accepted.stream().filter(r -> r.header("Idempotency-Replayed") == null))
                        .as("exactly one answer did the work").hasSize(1);
                assertThat(replies.stream().filter(r -> r.status() == 409))
                        .allSatisfy(r -> assertThat(r.problem()).isEqualTo("idempotency-key-in-flight"));
            } finally {
                pool.shutdownNow();
            }

            long tenantId = tenant.tenant().id();
            assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE tenant_id = ?", tenantId)).isEqualTo(1);
            long siteId = api.count("SELECT id FROM pv_site WHERE tenant_id = ?", tenantId);
            assertThat(api.count("SELECT COUNT(*) FROM cv_flow WHERE kind = 'provision-site'")).isEqualTo(1);
            assertThat(api.count("SELECT COUNT(*) FROM cv_flow WHERE subject = ?", "site-" + siteId)).isEqualTo(1);
            assertThat(api.count("SELECT COUNT(*) FROM pv_idempotency WHERE tenant_id = ? AND state = 'completed'",
                    tenantId)).isEqualTo(1);

            await().atMost(Duration.ofSeconds(30)).until(() ->
                    api.service().sites().get(tenantId, siteId).orElseThrow().state() == SiteState.ACTIVE);
            for (String leaf : LeafSim.LEAVES) {
                assertThat(api.fixture.leaves().leafSim().inventory(leaf).current()).as(leaf).hasSize(1);
            }
        }
    }

    /** Fifty different requests (different keys, different leads) for one subdomain: one wins, the rest are told it is taken. */
    @Test
    void fiftyConcurrentRequestsForOneSubdomainMakeOneSiteAndTellTheRestItIsTaken() throws Exception {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created tenant = api.tenant();
            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                bodies.add(ApiHarness.siteBody(api.lead(tenant.token()), "contested"));
            }
            CyclicBarrier barrier = new CyclicBarrier(REQUESTS);
            ExecutorService pool = Executors.newFixedThreadPool(REQUESTS);
            List<ApiClient.Reply> replies = new ArrayList<>();
            try {
                List<Future<ApiClient.Reply>> futures = new ArrayList<>();
                for (int i = 0; i < REQUESTS; i++) {
                    String body = bodies.get(i);
                    String key = "key-" + i;
                    futures.add(pool.submit(() -> {
                        barrier.await();
                        return api.client.postSite(tenant.token(), key, body);
                    }));
                }
                for (Future<ApiClient.Reply> f : futures) {
                    replies.add(f.get());
                }
            } finally {
                pool.shutdownNow();
            }
            String seen = replies.stream().collect(Collectors.groupingBy(
                    r -> r.status() + " " + r.problem(), Collectors.counting())).toString();
            assertThat(replies.stream().filter(r -> r.status() == 202)).as(seen).hasSize(1);
            assertThat(replies.stream().filter(r -> r.status() != 202)).as(seen)
                    .allSatisfy(r -> {
                        assertThat(r.status()).isEqualTo(409);
                        assertThat(r.problem()).isEqualTo("subdomain-taken");
                    });
            assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE tenant_id = ?", tenant.tenant().id())).isEqualTo(1);
            assertThat(api.count("SELECT COUNT(*) FROM cv_flow WHERE kind = 'provision-site'")).isEqualTo(1);
        }
    }
}
