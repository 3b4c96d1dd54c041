package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.provisioning.validation.PublicId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Typed reads of a request object's fields, collecting every error (wrong type, missing, unknown
 * field) so one 422 names them all. Unknown fields are rejected rather than ignored: a misspelt
 * optional field ({@code "tempalte"}) would otherwise silently fall back to its default.
 */
final class BodyFields {
    private final ObjectNode body;
    private final Set<String> allowed;
    private final List<ApiProblem.FieldError> errors = new ArrayList<>();

    BodyFields(ObjectNode body, Set<String> allowed) {
        this.body = body;
        this.allowed = allowed;
    }

    String requiredText(String field) {
        String v = optionalText(field);
        if (v == null && !hasError(field)) {
            errors.add(new ApiProblem.FieldError(field, "is required"));
        }
        return v;
    }

    /** The field's text, or null when absent or JSON null. */
    String optionalText(String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            errors.add(new ApiProblem.FieldError(field, "must be a string"));
            return null;
        }
        return v.textValue();
    }

    /** A positive integer; 0 after recording an error. */
    long requiredId(String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            errors.add(new ApiProblem.FieldError(field, "is required"));
            return 0;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() <= 0) {
            errors.add(new ApiProblem.FieldError(field, "must be a positive integer"));
            return 0;
        }
        return v.longValue();
    }

    /**
     * A required reference to a site or lead: its public id, or (from a client that got it from a
     * node of the previous release) the database id as a JSON integer.
     */
    PublicId.Ref requiredRef(String field, PublicId kind) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            errors.add(new ApiProblem.FieldError(field, "is required"));
            return null;
        }
        if (v.isTextual() && kind.matches(v.textValue())) {
            return new PublicId.Ref(v.textValue(), 0);
        }
        if (v.isIntegralNumber() && v.canConvertToLong() && v.longValue() > 0) {
            return new PublicId.Ref(null, v.longValue());
        }
        errors.add(new ApiProblem.FieldError(field, kind.expected()));
        return null;
    }

    private boolean hasError(String field) {
        return errors.stream().anyMatch(e -> e.field().equals(field));
    }

    /** Throws a 422 naming every invalid field (the known ones first, then the unknown), if any. */
    void check() {
        for (var field : body.properties()) {
            if (!allowed.contains(field.getKey())) {
                errors.add(new ApiProblem.FieldError(field.getKey(), "is not a known field"));
            }
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, errors);
        }
    }
}
