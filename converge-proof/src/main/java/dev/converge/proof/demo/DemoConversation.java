package dev.converge.proof.demo;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's conversation with the assistant, over the API, against an in-process scripted model:
 * a person asks for a site (create_site, the answer quoting the receipt's deadline), then asks to
 * delete it (delete_site, refused without a person's approval, the answer saying whom to ask). A
 * turn that a simulated crash killed is failed, never re-run: the person sends the message again.
 */
final class DemoConversation {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CREATE = Pattern.compile("lead (lead_[0-9a-f]{32}) at ([a-z0-9-]+)");
    private static final Pattern DELETE = Pattern.compile("delete site (site_[0-9a-f]{32})");
    private static final int SENDS = 8;

    /** What the demo reports of its conversation. */
    record Summary(
            @JsonProperty("conversation_id") String conversationId,
            @JsonProperty("turns") Map<String, Long> turns,
            @JsonProperty("tool_calls") List<String> toolCalls,
            @JsonProperty("answers") List<String> answers,
            @JsonProperty("receipt_deadline") String receiptDeadline,
            @JsonProperty("answer_quotes_deadline") boolean answerQuotesDeadline,
            @JsonProperty("delete_refused_without_approval") boolean deleteRefused,
            @JsonProperty("site_id") String siteId) {
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;

    DemoConversation(String base, String token) {
        this.base = base;
        this.token = token;
    }

    /** How the scripted model answers: it reads the person's words and the tools' results, like a model would. */
    static ScriptedModel.Reply model() {
        return req -> {
            JsonNode messages = req.path("messages");
            JsonNode last = messages.get(messages.size() - 1);
            if ("tool".equals(last.path("role").asText())) {
                JsonNode result = ScriptedModel.lastToolResult(req);
                if (result.hasNonNull("subscription_deadline") && !"deletion_started".equals(result.path("outcome").asText())) {
                    return ScriptedModel.answer("Done: site " + result.path("site_id").asText() + " will be at "
                            + result.path("expected_url").asText() + ". Its trial ends " + result.path("subscription_deadline")
                            .asText() + ": subscribe before then to keep it.");
                }
                if (ScriptedModel.lastToolText(req).contains("A person must approve")) {
                    return ScriptedModel.answer("I cannot delete it myself: deleting a site needs a person's approval. "
                            + "Please ask a person who approves deletions for your organisation, then tell me the "
                            + "approval token.");
                }
                return ScriptedModel.answer("The tool said: " + result.path("message").asText(result.toString()));
            }
            String said = last.path("content").asText();
            Matcher d = DELETE.matcher(said);
            if (d.find()) {
                return ScriptedModel.toolCalls(ScriptedModel.call("call_" + messages.size(), "delete_site",
                        Map.of("site_id", d.group(1))));
            }
            Matcher c = CREATE.matcher(said);
            if (c.find()) {
                return ScriptedModel.toolCalls(ScriptedModel.call("call_" + messages.size(), "create_site",
                        Map.of("lead_id", c.group(1), "subdomain", c.group(2))));
            }
            return ScriptedModel.answer("How can I help with your sites?");
        };
    }

    Summary run(String leadId, String subdomain, Progress progress) throws Exception {
        String id = null;
        Map<String, Long> turns = new LinkedHashMap<>();
        JsonNode conv = null;
        for (String message : List.of("Please create a site for lead " + leadId + " at " + subdomain + ".", "DELETE")) {
            for (int send = 1; send <= SENDS; send++) {
                String text = message;
                if ("DELETE".equals(message)) {
                    text = "Now please delete site " + siteId(conv) + ".";
                }
                String body = JSON.writeValueAsString(Map.of("message", text));
                JsonNode started = id == null ? post("/v1/conversations", body) : post("/v1/conversations/" + id + "/messages", body);
                id = started.path("conversation_id").asText();
                int turn = started.path("turn").asInt();
                conv = awaitEnded(id, turn);
                String state = conv.path("turns").get(turn - 1).path("state").asText();
                turns.merge(state, 1L, Long::sum);
                progress.say("conversation %s turn %d: %s", id, turn, state);
                if (!"failed".equals(state)) {
                    break; // a failed turn is never re-run by the queue: the person sends the message again
                }
            }
        }
        List<String> calls = new ArrayList<>();
        List<String> answers = new ArrayList<>();
        String deadline = null;
        boolean refused = false;
        String siteId = siteId(conv);
        for (JsonNode t : conv.path("turns")) {
            for (JsonNode line : t.path("transcript")) {
                String role = line.path("role").asText();
                if ("tool".equals(role)) {
                    JsonNode r = line.path("result");
                    calls.add(line.path("name").asText() + " -> " + (line.path("error").asBoolean()
                            ? "refused: " + r.path("error").asText() : r.path("outcome").asText(line.path("state").asText())));
                    if ("create_site".equals(line.path("name").asText()) && r.hasNonNull("subscription_deadline")) {
                        deadline = r.path("subscription_deadline").asText();
                    }
                    refused |= "delete_site".equals(line.path("name").asText()) && "approval_required".equals(r.path("error").asText());
                } else if ("assistant".equals(role) && line.hasNonNull("content") && !line.path("content").asText().isEmpty()) {
                    answers.add(line.path("content").asText());
                }
            }
        }
        String quoted = deadline;
        boolean quotes = quoted != null && answers.stream().anyMatch(a -> a.contains(quoted));
        return new Summary(id, turns, calls, answers, deadline, quotes, refused, siteId);
    }

    private static String siteId(JsonNode conv) {
        if (conv == null) {
            return null;
        }
        for (JsonNode t : conv.path("turns")) {
            for (JsonNode line : t.path("transcript")) {
                if ("create_site".equals(line.path("name").asText()) && line.path("result").has("site_id")) {
                    return line.path("result").path("site_id").asText();
                }
            }
        }
        return null;
    }

    private JsonNode awaitEnded(String id, int turn) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/conversations/" + id))
                    .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
            JsonNode conv = JSON.readTree(r.body());
            JsonNode t = conv.path("turns").get(turn - 1);
            if (t != null && !"running".equals(t.path("state").asText())) {
                return conv;
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException("conversation " + id + " turn " + turn + " did not end within 60 s");
            }
            Thread.sleep(100);
        }
    }

    private JsonNode post(String path, String body) throws Exception {
        for (int i = 0; ; i++) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 202) {
                return JSON.readTree(r.body());
            }
            if (i >= 20 || (r.statusCode() != 429 && r.statusCode() != 409 && r.statusCode() < 500)) {
                throw new IllegalStateException("POST " + path + " answered " + r.statusCode() + ": " + r.body());
            }
            Thread.sleep(500);
        }
    }
}
