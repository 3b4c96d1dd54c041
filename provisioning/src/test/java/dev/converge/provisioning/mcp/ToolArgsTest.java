package dev.converge.provisioning.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.provisioning.validation.InvalidField;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One declaration gives both the published JSON Schema and the validation, which names the field at fault. */
class ToolArgsTest {
    private final ToolArgs args = new ToolArgs(List.of(
            ToolArg.integer("lead_id", "lead").required(),
            ToolArg.string("subdomain", "sub").required().range(3, 40).pattern("[a-z0-9][a-z0-9-]{1,38}[a-z0-9]"),
            ToolArg.integer("count", "n").range(1, 5)));

    @Test
    void theSchemaDeclaresTypesRequiredFieldsAndLimits() {
        Map<String, Object> schema = args.schema();
        assertThat(schema).containsEntry("type", "object").containsEntry("additionalProperties", false)
                .containsEntry("required", List.of("lead_id", "subdomain"));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> props = (Map<String, Map<String, Object>>) schema.get("properties");
        assertThat(props.get("lead_id")).containsEntry("type", "integer").containsEntry("minimum", 1L);
        assertThat(props.get("subdomain")).containsEntry("type", "string").containsEntry("maxLength", 40L)
                .containsEntry("pattern", "^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$");
        assertThat(props.get("count")).containsEntry("maximum", 5L);
    }

    @Test
    void validArgumentsAreTyped() {
        ToolArgs.Arguments a = args.validate(Map.of("lead_id", 7, "subdomain", "ada-shop", "count", 2.0));
        assertThat(a.integer("lead_id")).isEqualTo(7L);
        assertThat(a.string("subdomain")).isEqualTo("ada-shop");
        assertThat(a.integer("count")).isEqualTo(2L);
    }

    @Test
    void eachProblemNamesItsField() {
        assertField(Map.of("subdomain", "ada-shop"), "lead_id", "is required");
        assertField(Map.of("lead_id", "7", "subdomain", "ada-shop"), "lead_id", "must be an integer");
        assertField(Map.of("lead_id", 7.5, "subdomain", "ada-shop"), "lead_id", "must be an integer");
        assertField(Map.of("lead_id", 0, "subdomain", "ada-shop"), "lead_id", "at least 1");
        assertField(Map.of("lead_id", 7, "subdomain", "Ada Shop"), "subdomain", "must match");
        assertField(Map.of("lead_id", 7, "subdomain", 12), "subdomain", "must be a string");
        assertField(Map.of("lead_id", 7, "subdomain", "ada-shop", "count", 9), "count", "between 1 and 5");
        assertField(Map.of("lead_id", 7, "subdomain", "ada-shop", "colour", "red"), "colour", "not an argument");
        Map<String, Object> nullLead = new HashMap<>(Map.of("subdomain", "ada-shop"));
        nullLead.put("lead_id", null);
        assertField(nullLead, "lead_id", "is required");
    }

    private void assertField(Map<String, Object> sent, String field, String problem) {
        assertThatThrownBy(() -> args.validate(sent)).isInstanceOfSatisfying(InvalidField.class, f -> {
            assertThat(f.field()).isEqualTo(field);
            assertThat(f.getMessage()).contains(problem);
        });
    }
}
