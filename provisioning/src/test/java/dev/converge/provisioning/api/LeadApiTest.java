package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Leads, authentication and the generic problem answers (malformed JSON, unknown routes). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeadApiTest {
    private ApiHarness api;
    private String token;
    private String otherToken;

    @BeforeAll
    void start() {
        api = new ApiHarness();
        token = api.tenant().token();
        otherToken = api.tenant().token();
    }

    @AfterAll
    void stop() {
        api.close();
    }

    @Test
    void createsALeadWith201AndShowsItToItsTenantOnly() {
        var created = api.client.post("/v1/leads", token, "{\"name\":\"Grace\",\"email\":\"grace@example.com\"}");
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.header("Content-Type")).startsWith("application/json");
        JsonNode lead = created.json();
        String id = lead.get("id").asText();
        assertThat(lead.get("status").asText()).isEqualTo("lead");
        assertThat(lead.get("name").asText()).isEqualTo("Grace");
        assertThat(created.header("Location")).isEqualTo("/v1/leads/" + id);

        var shown = api.client.get("/v1/leads/" + id, token);
        assertThat(shown.status()).isEqualTo(200);
        assertThat(shown.json().get("email").asText()).isEqualTo("grace@example.com");
        assertThat(shown.json().get("status").asText()).isEqualTo("lead");

        var foreign = api.client.get("/v1/leads/" + id, otherToken);
        var missing = api.client.get("/v1/leads/999999", token);
        assertThat(foreign.status()).as("another tenant's lead is a 404, not a 403").isEqualTo(404);
        assertThat(foreign.problem()).isEqualTo("not-found");
        assertThat(foreign.header("Content-Type")).startsWith("application/problem+json");
        assertThat(foreign.json().get("detail").asText()).as("indistinguishable from a lead that does not exist")
                .isEqualTo(missing.json().get("detail").asText().replace("999999", id));
    }

    @Test
    void invalidFieldsAre422NamingTheField() {
        var badEmail = api.client.post("/v1/leads", token, "{\"name\":\"Ada\",\"email\":\"not-an-email\"}");
        assertThat(badEmail.status()).isEqualTo(422);
        assertThat(badEmail.problem()).isEqualTo("validation-failed");
        assertThat(badEmail.json().get("field").asText()).isEqualTo("email");
        assertThat(badEmail.json().get("status").asInt()).isEqualTo(422);
        assertThat(badEmail.json().get("title").asText()).isNotBlank();

        var wrongType = api.client.post("/v1/leads", token, "{\"name\":42,\"email\":\"a@example.com\"}");
        assertThat(wrongType.status()).isEqualTo(422);
        assertThat(wrongType.json().get("field").asText()).isEqualTo("name");

        var unknown = api.client.post("/v1/leads", token, "{\"name\":\"A\",\"email\":\"a@example.com\",\"phone\":\"1\"}");
        assertThat(unknown.status()).isEqualTo(422);
        assertThat(unknown.json().get("field").asText()).isEqualTo("phone");

        var missingBoth = api.client.post("/v1/leads", token, "{}");
        assertThat(missingBoth.status()).isEqualTo(422);
        assertThat(missingBoth.json().get("errors")).extracting(e -> e.get("field").asText())
                .containsExactlyInAnyOrder("name", "email");
    }

    @Test
    void malformedBodiesAre400() {
        var broken = api.client.post("/v1/leads", token, "{\"name\": \"Ada\",");
        assertThat(broken.status()).isEqualTo(400);
        assertThat(broken.problem()).isEqualTo("malformed-json");

        var duplicateKey = api.client.post("/v1/leads", token, "{\"name\":\"A\",\"name\":\"B\",\"email\":\"a@example.com\"}");
        assertThat(duplicateKey.status()).isEqualTo(400);
        assertThat(duplicateKey.problem()).isEqualTo("malformed-json");

        var array = api.client.post("/v1/leads", token, "[1,2]");
        assertThat(array.status()).isEqualTo(400);
        assertThat(array.problem()).isEqualTo("invalid-body");

        var empty = api.client.post("/v1/leads", token, "");
        assertThat(empty.status()).isEqualTo(400);

        var form = api.client.send(api.client.request("/v1/leads", token).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("name=Ada")));
        assertThat(form.status()).isEqualTo(415);
        assertThat(form.problem()).isEqualTo("unsupported-media-type");
    }

    @Test
    void missingOrInvalidTokensAre401WithABearerChallenge() {
        var none = api.client.get("/v1/leads/1", null);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.problem()).isEqualTo("unauthorized");
        assertThat(none.header("WWW-Authenticate")).startsWith("Bearer");

        var wrong = api.client.get("/v1/leads/1", token + "x");
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.header("WWW-Authenticate")).contains("Bearer").contains("invalid_token");

        var basic = api.client.send(api.client.request("/v1/sites", null).header("Authorization", "Basic YTpi").GET());
        assertThat(basic.status()).isEqualTo(401);

        var post = api.client.post("/v1/leads", null, "{\"name\":\"A\",\"email\":\"a@example.com\"}");
        assertThat(post.status()).as("nothing is created without a token").isEqualTo(401);
    }

    @Test
    void leadIdsThatAreNotIdsAre400AndUnknownRoutes404Problems() {
        var notAnId = api.client.get("/v1/leads/abc", token);
        assertThat(notAnId.status()).isEqualTo(400);
        assertThat(notAnId.json().get("field").asText()).isEqualTo("id");

        var unknown = api.client.get("/v1/nothing-here", token);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.header("Content-Type")).startsWith("application/problem+json");
        var unknownOpen = api.client.get("/nothing-here", null);
        assertThat(unknownOpen.status()).isEqualTo(404);
        assertThat(unknownOpen.problem()).isEqualTo("not-found");
    }

    @Test
    void anOptionalIdempotencyKeyOnLeadsReplaysTheFirstLead() {
        String body = "{\"name\":\"Once\",\"email\":\"once@example.com\"}";
        var first = api.client.send(api.client.request("/v1/leads", token).header("Idempotency-Key", "lead-once")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)));
        var again = api.client.send(api.client.request("/v1/leads", token).header("Idempotency-Key", "lead-once")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.header("Idempotency-Replayed")).isEqualTo("true");
        assertThat(first.header("Idempotency-Replayed")).isNull();
    }
}
