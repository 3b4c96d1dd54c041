package dev.converge.provisioning.conversation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A conversation as stored: its turns, each with what the person said, what the model said and
 * which tools it called, and what each tool answered (its receipt, or its refusal with what to do).
 */
public record Transcript(Header header, List<Conversations.Turn> turns, List<Conversations.Entry> entries) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code id} is the database's key; {@code publicId} the conversation's name outside ({@code conv_...}). */
    public record Header(long id, String publicId, Instant createdAt, Instant updatedAt) {
    }

    /** The transcript as the API shows it (JSON-ready maps, in order). */
    public Map<String, Object> view() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", header.publicId());
        out.put("created_at", header.createdAt().toString());
        Conversations.Turn last = turns.isEmpty() ? null : turns.get(turns.size() - 1);
        out.put("state", last != null && last.running() ? "running" : "idle");
        List<Map<String, Object>> ts = new ArrayList<>();
        for (Conversations.Turn t : turns) {
            Map<String, Object> tm = new LinkedHashMap<>();
            tm.put("turn", t.seq());
            tm.put("state", t.state());
            tm.put("model_calls", t.steps());
            tm.put("error", t.error());
            tm.put("started_at", t.createdAt().toString());
            tm.put("ended_at", t.endedAt() == null ? null : t.endedAt().toString());
            List<Map<String, Object>> lines = new ArrayList<>();
            for (Conversations.Entry e : entries) {
                if (e.turnId() == t.id()) {
                    lines.add(line(e));
                }
            }
            tm.put("transcript", lines);
            ts.add(tm);
        }
        out.put("turns", ts);
        out.put("links", Map.of("self", "/v1/conversations/" + header.publicId(),
                "messages", "/v1/conversations/" + header.publicId() + "/messages"));
        return out;
    }

    private static Map<String, Object> line(Conversations.Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", e.kind());
        m.put("at", e.createdAt().toString());
        switch (e.kind()) {
            case "user" -> m.put("content", e.content());
            case "assistant" -> {
                m.put("content", e.content());
                m.put("tool_calls", e.toolCalls() == null ? List.of() : parse(e.toolCalls()));
            }
            default -> {
                m.put("call_id", e.callId());
                m.put("name", e.toolName());
                m.put("arguments", parse(e.arguments()));
                // started and never done: the turn stopped while the call ran, so its outcome is unknown
                m.put("state", e.state());
                m.put("error", e.error());
                m.put("result", e.result() == null ? null : parse(e.result()));
                m.put("ended_at", e.endedAt() == null ? null : e.endedAt().toString());
            }
        }
        return m;
    }

    static Object parse(String json) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            return json; // what the model sent was not JSON: shown as it came
        }
    }
}
