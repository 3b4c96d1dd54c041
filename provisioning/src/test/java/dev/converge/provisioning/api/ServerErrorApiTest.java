package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.tenant.Tenants;
import org.junit.jupiter.api.Test;

/** What the API answers when its own side fails: a 5xx gives the idempotency key back; health turns 503. */
class ServerErrorApiTest {

    @Test
    void aServerErrorReleasesTheKeySoTheSameRequestCanBeRetried() {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created t = api.tenant();
            String lead = api.lead(t.token());
            String body = ApiHarness.siteBody(lead, "retry-me");
            api.update("ALTER TABLE pv_site RENAME TO pv_site_away");
            ApiClient.Reply failed;
            try {
                failed = api.client.postSite(t.token(), "retry-key", body);
            } finally {
                api.update("ALTER TABLE pv_site_away RENAME TO pv_site");
            }
            assertThat(failed.status()).isEqualTo(500);
            assertThat(failed.problem()).isEqualTo("internal-error");
            assertThat(failed.body()).as("nothing about the internals").doesNotContain("pv_site").doesNotContain("SQL");
            assertThat(api.count("SELECT COUNT(*) FROM pv_idempotency WHERE idem_key = 'retry-key'"))
                    .as("a 5xx is not stored").isZero();

            var retried = api.client.postSite(t.token(), "retry-key", body);
            assertThat(retried.status()).isEqualTo(202);
            assertThat(retried.header("Idempotency-Replayed")).isNull();
            assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE subdomain = 'retry-me'")).isEqualTo(1);
        }
    }

    @Test
    void healthIs503WhenTheDatabaseDoesNotAnswer() {
        try (ApiHarness api = new ApiHarness()) {
            assertThat(api.client.get("/health", null).status()).isEqualTo(200);
            api.service().store().close();
            var r = api.client.get("/health", null);
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.problem()).isEqualTo("service-unavailable");
            assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        }
    }
}
