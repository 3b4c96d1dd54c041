package dev.converge.provisioning.leaf;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/** Strict reads of a leaf's JSON: a field counts only when present, of the right type, and non-blank. */
final class JsonFields {
    private JsonFields() {
    }

    static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isTextual() && !value.asText().isBlank() ? Optional.of(value.asText())
                : Optional.empty();
    }

    /** A textual field that may be null or absent (free text such as a description). */
    static String optionalText(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isTextual() ? value.asText() : null;
    }

    /** A positive integral id, as text. */
    static Optional<String> id(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isIntegralNumber() && value.asLong() > 0 ? Optional.of(value.asText())
                : Optional.empty();
    }
}
