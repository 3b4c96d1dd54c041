package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.idempotency.RequestFingerprint;
import dev.converge.provisioning.tenant.Tenants;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The Idempotency-Key protocol of {@code POST /v1/sites} (draft-ietf-httpapi-idempotency-key-header). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotencyApiTest {
    private ApiHarness api;
    private Tenants.Created tenant;
    private String token;
    private String lead;

    @BeforeAll
    void start() {
        // the recurring job pv.purge-expired every second, so that a test sees it delete
        api = new ApiHarness(new ProvisioningFixture(Duration.ofDays(14), Duration.ofSeconds(1)), ApiOptions.defaults(),
                List.of());
        tenant = api.tenant();
        token = tenant.token();
        lead = api.lead(token);
    }

    @AfterAll
    void stop() {
        api.close();
    }

    @Test
    void aMissingKeyIs400AndCreatesNothing() {
        String sub = ApiHarness.subdomain("nokey");
        var r = api.client.postSite(token, null, ApiHarness.siteBody(lead, sub));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.problem()).isEqualTo("idempotency-key-missing");
        assertThat(r.json().get("field").asText()).isEqualTo("Idempotency-Key");
        assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE subdomain = ?", sub)).isZero();

        var invalid = api.client.postSite(token, "a key with spaces", ApiHarness.siteBody(lead, sub));
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.problem()).isEqualTo("idempotency-key-invalid");
    }

    @Test
    void theSameKeyAndBodyReplaysTheStoredResponseByteForByte() {
        String sub = ApiHarness.subdomain("replay");
        String key = "replay-" + sub;
        var first = api.client.postSite(token, key, ApiHarness.siteBody(lead, sub));
        String reordered = "{ \"subdomain\" : \"" + sub + "\",\n  \"lead_id\" : \"" + lead + "\" }";
        var second = api.client.postSite(token, "\"" + key + "\"", reordered);
        assertThat(first.status()).isEqualTo(202);
        assertThat(first.header("Idempotency-Replayed")).isNull();
        assertThat(second.status()).as("whitespace, key order and the sf-string form do not matter").isEqualTo(202);
        assertThat(second.header("Idempotency-Replayed")).isEqualTo("true");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.header("Location")).isEqualTo(first.header("Location"));
        assertThat(second.header("Content-Type")).isEqualTo(first.header("Content-Type"));
        assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE subdomain = ?", sub)).isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherBodyIs422() {
        String sub = ApiHarness.subdomain("reuse");
        String key = "reuse-" + sub;
        assertThat(api.client.postSite(token, key, ApiHarness.siteBody(lead, sub)).status()).isEqualTo(202);
        String other = ApiHarness.subdomain("reuse");
        var r = api.client.postSite(token, key, ApiHarness.siteBody(lead, other));
        assertThat(r.status()).isEqualTo(422);
        assertThat(r.problem()).isEqualTo("idempotency-key-reused");
        assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE subdomain = ?", other)).isZero();
    }

    @Test
    void keysAreScopedByTenant() {
        Tenants.Created other = api.tenant();
        String otherLead = api.lead(other.token());
        String key = "shared-key";
        var mine = api.client.postSite(token, key, ApiHarness.siteBody(lead, ApiHarness.subdomain("scope")));
        var theirs = api.client.postSite(other.token(), key, ApiHarness.siteBody(otherLead, ApiHarness.subdomain("scope")));
        assertThat(mine.status()).isEqualTo(202);
        assertThat(theirs.status()).as("another tenant's key is not ours").isEqualTo(202);
        assertThat(theirs.header("Idempotency-Replayed")).isNull();
        assertThat(theirs.json().get("site_id").asText()).isNotEqualTo(mine.json().get("site_id").asText());
    }

    @Test
    void aKeyWhoseFirstRequestIsInFlightIs409UntilTheClaimIsPresumedAbandoned() {
        String sub = ApiHarness.subdomain("inflight");
        String body = ApiHarness.siteBody(lead, sub);
        String key = "inflight-" + sub;
        ObjectMapper json = new ObjectMapper();
        String fingerprint;
        try {
            fingerprint = RequestFingerprint.of(json, "POST /v1/sites", json.readTree(body));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        // a claim held by a request still running (inserted as that request would have inserted it)
        api.update("INSERT INTO pv_idempotency (tenant_id, idem_key, request_hash, state, created_at, expires_at) "
                + "VALUES (?, ?, ?, 'in_flight', CURRENT_TIMESTAMP, DATEADD(HOUR, 24, CURRENT_TIMESTAMP))",
                tenant.tenant().id(), key, fingerprint);
        var r = api.client.postSite(token, key, body);
        assertThat(r.status()).isEqualTo(409);
        assertThat(r.problem()).isEqualTo("idempotency-key-in-flight");
        assertThat(r.header("Retry-After")).isNotNull();
        assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE subdomain = ?", sub)).isZero();

        // its holder died long ago: the claim is taken over by exactly this retry, which does the work
        api.update("UPDATE pv_idempotency SET created_at = ? WHERE idem_key = ?",
                Timestamp.from(Instant.now().minus(Duration.ofHours(1))), key);
        var retried = api.client.postSite(token, key, body);
        assertThat(retried.status()).isEqualTo(202);
        assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE subdomain = ?", sub)).isEqualTo(1);
        assertThat(api.client.postSite(token, key, body).body()).isEqualTo(retried.body());
    }

    @Test
    void finalErrorsAreStoredAndReplayedToo() {
        String sub = ApiHarness.subdomain("stored");
        String bad = "{\"lead_id\":999999,\"subdomain\":\"" + sub + "\"}";
        var first = api.client.postSite(token, "stored-" + sub, bad);
        var again = api.client.postSite(token, "stored-" + sub, bad);
        assertThat(first.status()).isEqualTo(422);
        assertThat(again.status()).isEqualTo(422);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.header("Idempotency-Replayed")).isEqualTo("true");
        assertThat(again.header("Content-Type")).startsWith("application/problem+json");

        // a taken subdomain is final for the key as well
        var taken = api.client.postSite(token, "taken-a-" + sub, ApiHarness.siteBody(lead, sub));
        assertThat(taken.status()).isEqualTo(202);
        var conflict = api.client.postSite(token, "taken-b-" + sub, ApiHarness.siteBody(lead, sub));
        var conflictAgain = api.client.postSite(token, "taken-b-" + sub, ApiHarness.siteBody(lead, sub));
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflictAgain.status()).isEqualTo(409);
        assertThat(conflictAgain.body()).isEqualTo(conflict.body());
        assertThat(conflictAgain.header("Idempotency-Replayed")).isEqualTo("true");
    }

    @Test
    void keysAreKeptForTheConfiguredTimeAndReusableOnceExpired() {
        String sub = ApiHarness.subdomain("expiry");
        String key = "expiry-" + sub;
        assertThat(api.client.postSite(token, key, ApiHarness.siteBody(lead, sub)).status()).isEqualTo(202);
        long ttlSeconds = api.count("SELECT DATEDIFF(SECOND, created_at, expires_at) FROM pv_idempotency "
                + "WHERE tenant_id = ? AND idem_key = ?", tenant.tenant().id(), key);
        assertThat(Duration.ofSeconds(ttlSeconds)).isEqualTo(api.service().config().idempotencyTtl());

        // expired (the clock moved past expires_at): lazily dropped, so the key works again for a new request
        api.update("UPDATE pv_idempotency SET expires_at = ? WHERE idem_key = ?",
                Timestamp.from(Instant.now().minusSeconds(5)), key);
        String next = ApiHarness.subdomain("expiry");
        var reused = api.client.postSite(token, key, ApiHarness.siteBody(lead, next));
        assertThat(reused.status()).isEqualTo(202);
        assertThat(reused.header("Idempotency-Replayed")).isNull();
        assertThat(reused.json().get("site_details").get("subdomain").asText()).isEqualTo(next);
    }

    @Test
    void expiredKeysArePurgedByTheRecurringJob() {
        String key = "purged-" + ApiHarness.subdomain("p");
        assertThat(api.client.postSite(token, key, "{\"lead_id\":999999,\"subdomain\":\"purge-me\"}").status())
                .isEqualTo(422);
        assertThat(api.count("SELECT COUNT(*) FROM pv_idempotency WHERE idem_key = ?", key)).isEqualTo(1);
        api.update("UPDATE pv_idempotency SET expires_at = ? WHERE idem_key = ?",
                Timestamp.from(Instant.now().minusSeconds(5)), key);
        await().atMost(Duration.ofSeconds(15)).until(() ->
                api.count("SELECT COUNT(*) FROM pv_idempotency WHERE idem_key = ?", key) == 0);
        // deleted by a run of the recurring job, whose own outcome the completer records just after its work committed
        await().atMost(Duration.ofSeconds(15)).until(() ->
                api.count("SELECT COUNT(*) FROM cv_job WHERE kind = 'pv.purge-expired' AND state = 'succeeded'") > 0);
    }
}
