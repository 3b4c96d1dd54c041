package dev.converge.proof.demo;

import static dev.converge.proof.demo.ScriptedModel.answer;
import static dev.converge.proof.demo.ScriptedModel.call;
import static dev.converge.proof.demo.ScriptedModel.toolCalls;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.proof.demo.ScriptedModel;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.api.ApiClient;
import dev.converge.provisioning.api.ApiHarness;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.assistant.ModelKey;
import dev.converge.provisioning.assistant.ModelSettings;
import dev.converge.provisioning.extensions.StandardExtensions;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The assistant's turn over real HTTP at both ends: the API starts a turn, a worker runs it
 * against a scripted chat model served on loopback (the OpenAI chat-completions API, through
 * LangChain4j's client), the tools run through the MCP tools' runner, and the transcript is read
 * back through the API.
 */
class ConversationApiTest {
    private static final String KEY = "sk-test-very-secret-key-123";

    private ScriptedModel model;
    private ApiHarness api;

    private void start(ScriptedModel m, int steps) {
        this.model = m;
        ModelSettings settings = ModelSettings.of(m.baseUrl(), "scripted-1").withKey(ModelKey.of(KEY))
                .withStepBudget(steps).withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(60));
        api = new ApiHarness(new ProvisioningFixture(Duration.ofDays(14), settings), ApiOptions.defaults(),
                StandardExtensions.all());
    }

    @AfterEach
    void stop() {
        if (api != null) {
            api.close();
        }
        if (model != null) {
            model.close();
        }
    }

    private JsonNode awaitTurnEnded(String token, String conversation, int turn) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            ApiClient.Reply r = api.client.get("/v1/conversations/" + conversation, token);
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            last[0] = r.json();
            JsonNode t = r.json().get("turns").get(turn - 1);
            return t != null && !"running".equals(t.get("state").asText());
        });
        return last[0];
    }

    private static List<String> roles(JsonNode transcript) {
        List<String> out = new ArrayList<>();
        transcript.forEach(l -> out.add(l.get("role").asText()));
        return out;
    }

    @Test
    void createSiteAskedTwiceConvergesOnOneSiteAndTheAnswerQuotesTheReceiptsDeadline() {
        String sub = ApiHarness.subdomain("chat");
        String[] lead = new String[1];
        start(ScriptedModel.start(), 8);
        Tenants.Created tenant = api.tenant();
        String agent = api.token(tenant, Scope.AGENT);
        lead[0] = api.lead(tenant.token());
        Map<String, Object> args = Map.of("lead_id", lead[0], "subdomain", sub);
        model.then(req -> toolCalls(call("call_a", "create_site", args)),
                // the model asks again for the same site (as a model unsure of the first call might)
                req -> toolCalls(call("call_b", "create_site", args)),
                req -> {
                    JsonNode receipt = ScriptedModel.lastToolResult(req);
                    return answer("Your site " + receipt.get("expected_url").asText() + " is being set up. Subscribe "
                            + "before " + receipt.get("subscription_deadline").asText() + " to keep it.");
                });

        ApiClient.Reply started = api.client.post("/v1/conversations", agent,
                "{\"message\":\"Please make a site for Ada at " + sub + "\"}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        assertThat(started.headers().firstValue("Location")).isPresent();
        String id = started.json().get("conversation_id").asText();
        JsonNode conv = awaitTurnEnded(agent, id, 1);
        JsonNode turn = conv.get("turns").get(0);
        assertThat(turn.get("state").asText()).as(conv.toString()).isEqualTo("answered");
        assertThat(turn.get("model_calls").asInt()).isEqualTo(3);

        // one site, whichever call made it
        assertThat(api.count("SELECT COUNT(*) FROM pv_site WHERE subdomain = ?", sub)).isEqualTo(1);
        long siteId = api.count("SELECT id FROM pv_site WHERE subdomain = ?", sub);
        String deadline = api.service().sites().receipt(api.service().sites().get(tenant.tenant().id(), siteId)
                .orElseThrow()).subscriptionDeadline();
        assertThat(deadline).isNotNull();

        // the transcript is complete: message, each call and its result (receipts), the answer
        JsonNode lines = turn.get("transcript");
        assertThat(roles(lines)).containsExactly("user", "assistant", "tool", "assistant", "tool", "assistant");
        assertThat(lines.get(0).get("content").asText()).contains(sub);
        assertThat(lines.get(1).get("tool_calls").get(0).get("name").asText()).isEqualTo("create_site");
        JsonNode first = lines.get(2);
        JsonNode second = lines.get(4);
        assertThat(first.get("state").asText()).isEqualTo("done");
        assertThat(first.get("error").asBoolean()).isFalse();
        assertThat(first.get("arguments").get("subdomain").asText()).isEqualTo(sub);
        assertThat(first.get("result").get("outcome").asText()).isEqualTo("created");
        assertThat(second.get("result").get("outcome").asText()).isEqualTo("already_requested");
        String publicId = api.service().sites().get(tenant.tenant().id(), siteId).orElseThrow().publicId();
        assertThat(first.get("result").get("site_id").asText()).isEqualTo(publicId);
        assertThat(second.get("result").get("site_id").asText()).isEqualTo(publicId);
        assertThat(first.get("result").get("subscription_deadline").asText()).isEqualTo(deadline);

        // the answer quotes the receipt's deadline, and the instructions carried the configured window
        String answer = lines.get(5).get("content").asText();
        assertThat(answer).contains(deadline).doesNotContainPattern("\\b\\d+ (days?|weeks?|months?)\\b");
        JsonNode firstRequest = model.requests().get(0);
        String system = firstRequest.get("messages").get(0).get("content").asText();
        assertThat(firstRequest.get("messages").get(0).get("role").asText()).isEqualTo("system");
        assertThat(system).contains("14 days").contains("never state a duration");
        assertThat(firstRequest.get("model").asText()).isEqualTo("scripted-1");
        List<String> offered = new ArrayList<>();
        firstRequest.get("tools").forEach(t -> offered.add(t.get("function").get("name").asText()));
        assertThat(offered).contains("create_site", "delete_site", "get_site_status");
        assertThat(model.requests()).hasSize(3);

        // the key went only on the wire
        assertThat(conv.toString()).doesNotContain(KEY);
    }

    @Test
    void deleteSiteWithoutApprovalIsRefusedAndTheModelIsToldToAskAPerson() {
        start(ScriptedModel.start(), 8);
        Tenants.Created tenant = api.tenant();
        String lead = api.lead(tenant.token());
        ApiClient.Reply site = api.client.postSite(tenant.token(), "chat-delete",
                ApiHarness.siteBody(lead, ApiHarness.subdomain("chatdel")));
        String siteId = site.json().get("site_id").asText();
        String[] fedBack = new String[1];
        model.then(req -> toolCalls(call("call_del", "delete_site", Map.of("site_id", siteId))),
                req -> {
                    fedBack[0] = ScriptedModel.lastToolText(req);
                    return answer("I cannot delete it without approval: please ask a person who approves deletions.");
                });

        ApiClient.Reply started = api.client.post("/v1/conversations", tenant.token(),
                "{\"message\":\"Delete site " + siteId + "\"}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        JsonNode conv = awaitTurnEnded(tenant.token(), started.json().get("conversation_id").asText(), 1);
        JsonNode lines = conv.get("turns").get(0).get("transcript");
        assertThat(roles(lines)).containsExactly("user", "assistant", "tool", "assistant");
        JsonNode refused = lines.get(2);
        assertThat(refused.get("error").asBoolean()).isTrue();
        assertThat(refused.get("result").get("error").asText()).isEqualTo("approval_required");
        assertThat(refused.get("result").get("what_to_do").asText()).contains("Ask a person");
        assertThat(fedBack[0]).contains("A person must approve this deletion").contains("Ask a person");
        assertThat(api.service().sites().get(tenant.tenant().id(), api.siteDbId(siteId)).orElseThrow().state().sql())
                .isIn("provisioning", "active");
    }

    @Test
    void aTurnStopsWhenItsStepBudgetIsSpentAndOneTurnRunsAtATime() throws Exception {
        start(ScriptedModel.start().holdRequest(0), 2);
        Tenants.Created tenant = api.tenant();
        String agent = api.token(tenant, Scope.AGENT);
        ApiClient.Reply started = api.client.post("/v1/conversations", agent, "{\"message\":\"How is site 1?\"}");
        String id = started.json().get("conversation_id").asText();
        assertThat(model.awaitHeld(Duration.ofSeconds(20))).isTrue();
        ApiClient.Reply busy = api.client.post("/v1/conversations/" + id + "/messages", agent, "{\"message\":\"and?\"}");
        assertThat(busy.status()).as(busy.toString()).isEqualTo(409);
        assertThat(busy.json().get("type").asText()).endsWith("/turn-running");
        // the approver reads, never talks; another tenant sees nothing
        assertThat(api.client.post("/v1/conversations", api.token(tenant, Scope.APPROVER), "{\"message\":\"x\"}")
                .status()).isEqualTo(403);
        assertThat(api.client.get("/v1/conversations/" + id, api.tenant().token()).status()).isEqualTo(404);
    }

    @Test
    void aModelThatKeepsCallingToolsIsStoppedByTheStepBudget() {
        start(ScriptedModel.start(), 2);
        Tenants.Created tenant = api.tenant();
        model.then(req -> toolCalls(call("s1", "suggest_palettes", Map.of())),
                req -> toolCalls(call("s2", "suggest_palettes", Map.of())));
        ApiClient.Reply started = api.client.post("/v1/conversations", tenant.token(), "{\"message\":\"colours?\"}");
        String id = started.json().get("conversation_id").asText();
        JsonNode conv = awaitTurnEnded(tenant.token(), id, 1);
        JsonNode turn = conv.get("turns").get(0);
        assertThat(turn.get("state").asText()).isEqualTo("budget_spent");
        assertThat(turn.get("model_calls").asInt()).isEqualTo(2);
        assertThat(model.requests()).hasSize(2);

        // the next message starts the next turn, which sees the whole conversation
        model.then(req -> answer("Blue."));
        ApiClient.Reply next = api.client.post("/v1/conversations/" + id + "/messages", tenant.token(),
                "{\"message\":\"pick one\"}");
        assertThat(next.status()).as(next.toString()).isEqualTo(202);
        assertThat(next.json().get("turn").asInt()).isEqualTo(2);
        JsonNode after = awaitTurnEnded(tenant.token(), id, 2);
        assertThat(after.get("turns").get(1).get("state").asText()).isEqualTo("answered");
        List<String> sent = new ArrayList<>();
        model.requests().get(2).get("messages").forEach(m -> sent.add(m.get("role").asText()));
        assertThat(sent).containsExactly("system", "user", "assistant", "tool", "assistant", "tool", "user");
    }

    @Test
    void aModelServerThatFailsFailsTheTurnWithoutTheKeyInTheTranscript() {
        start(ScriptedModel.start(), 4); // an empty script: the server answers 500 naming no reply
        Tenants.Created tenant = api.tenant();
        ApiClient.Reply started = api.client.post("/v1/conversations", tenant.token(), "{\"message\":\"hello\"}");
        JsonNode conv = awaitTurnEnded(tenant.token(), started.json().get("conversation_id").asText(), 1);
        JsonNode turn = conv.get("turns").get(0);
        assertThat(turn.get("state").asText()).isEqualTo("failed");
        assertThat(turn.get("error").asText()).contains("The turn stopped");
        assertThat(conv.toString()).doesNotContain(KEY);
        assertThat(model.requests()).as("one attempt: never retried").hasSize(1);
    }
}
