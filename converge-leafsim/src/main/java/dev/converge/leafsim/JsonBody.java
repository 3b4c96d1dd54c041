package dev.converge.leafsim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.Map;
import java.util.Optional;

/** Reads a request's JSON object body the way the leaves need it: absent or invalid is a 400. */
final class JsonBody {
    static final SimResponse PROBLEMS_PARSING = SimResponse.of(400, Map.of("message", "Problems parsing JSON"));

    private JsonBody() {
    }

    static Optional<ObjectNode> parse(Context ctx, ObjectMapper json) {
        try {
            JsonNode node = json.readTree(ctx.body());
            return node instanceof ObjectNode object ? Optional.of(object) : Optional.empty();
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    /** A trimmed text field, or null when missing, blank or not text. */
    static String text(ObjectNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            return null;
        }
        return value.asText().trim();
    }
}
