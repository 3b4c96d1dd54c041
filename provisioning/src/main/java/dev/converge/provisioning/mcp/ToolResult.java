package dev.converge.provisioning.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a tool call reports: structured content (a receipt, a status, or an error with what to do)
 * and the same as text for agents that read only text. Errors are results, not exceptions.
 */
public record ToolResult(boolean error, String text, Map<String, Object> structured) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static ToolResult ok(Map<String, Object> structured) {
        return new ToolResult(false, json(structured), structured);
    }

    public static ToolResult refused(ToolRefusal r) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("error", r.code());
        s.put("message", r.getMessage());
        s.putAll(r.details());
        s.put("what_to_do", r.whatToDo());
        return new ToolResult(true, r.getMessage() + " " + r.whatToDo(), s);
    }

    public McpSchema.CallToolResult toMcp() {
        return McpSchema.CallToolResult.builder()
                .content(List.of(new McpSchema.TextContent(text)))
                .structuredContent(structured)
                .isError(error)
                .build();
    }

    /** A record or map as plain JSON values (the receipts' own property names). */
    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return new LinkedHashMap<>(JSON.convertValue(value, Map.class));
    }

    private static String json(Object o) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("tool result does not serialize", e);
        }
    }
}
