package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.tenant.Tenants;
import org.junit.jupiter.api.Test;

/**
 * A conversation is known outside by a random public id ({@code conv_} and 32 hex digits) that
 * says nothing of how many conversations there are; the API answers it, takes it back in paths,
 * and answers another tenant's with the same 404 as a made-up one.
 */
class ConversationPublicIdTest {

    @Test
    void conversationsAreNamedByRandomPublicIds() {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created a = api.tenant();
            Tenants.Created b = api.tenant();
            ApiClient.Reply first = api.client.post("/v1/conversations", a.token(), "{\"message\":\"hello\"}");
            ApiClient.Reply second = api.client.post("/v1/conversations", a.token(), "{\"message\":\"hello again\"}");
            assertThat(first.status()).as(first.body()).isEqualTo(202);
            String id = first.json().get("conversation_id").asText();
            String other = second.json().get("conversation_id").asText();
            assertThat(id).matches("conv_[0-9a-f]{32}");
            assertThat(other).matches("conv_[0-9a-f]{32}").isNotEqualTo(id);
            assertThat(first.header("Location")).isEqualTo("/v1/conversations/" + id);
            assertThat(first.json().get("links").get("self").asText()).isEqualTo("/v1/conversations/" + id);

            ApiClient.Reply read = api.client.get("/v1/conversations/" + id, a.token());
            assertThat(read.status()).as(read.body()).isEqualTo(200);
            assertThat(read.json().get("id").asText()).isEqualTo(id);
            assertThat(read.body()).doesNotContain("\"id\":1,").doesNotContain("/v1/conversations/1\"");

            assertThat(api.client.get("/v1/conversations/" + id, b.token()).status()).as("another tenant's").isEqualTo(404);
            assertThat(api.client.get("/v1/conversations/conv_" + "0".repeat(32), a.token()).status()).as("made up")
                    .isEqualTo(404);
            assertThat(api.client.get("/v1/conversations/conv_xyz", a.token()).status()).as("malformed").isEqualTo(400);
        }
    }
}
