package dev.converge.provisioning.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.approval.ApprovalAction;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The annotations an agent sees follow from the repetition safety a tool declares, in one place. */
class ToolSafetyTest {

    @ParameterizedTest
    @CsvSource({
            // safety,                 readOnly, idempotent, destructive
            "READ_ONLY,                true,     true,       false",
            "NATURALLY_IDEMPOTENT,     false,    true,       true",
            "IDEMPOTENT_BY_CONSTRAINT, false,    true,       false",
            "IDEMPOTENT_BY_KEY,        false,    true,       false",
            "IDEMPOTENT_BY_TOKEN,      false,    true,       false",
            "UNSAFE,                   false,    false,      true"})
    void annotationsFollowFromTheSafety(RepetitionSafety safety, boolean readOnly, boolean idempotent,
            boolean destructive) {
        McpSchema.ToolAnnotations a = ToolSafety.annotations(safety, "A tool", true);
        assertThat(a.readOnlyHint()).isEqualTo(readOnly);
        assertThat(a.idempotentHint()).isEqualTo(idempotent);
        assertThat(a.destructiveHint()).isEqualTo(destructive);
        assertThat(a.openWorldHint()).isTrue();
        assertThat(a.title()).isEqualTo("A tool");
    }

    @ParameterizedTest
    @EnumSource(RepetitionSafety.class)
    void everySafetyTellsWhatToDoWhenInDoubt(RepetitionSafety safety) {
        assertThat(ToolSafety.ifInDoubt(safety)).isNotBlank();
        assertThat(ToolSafety.ifInDoubt(safety).contains("again is safe") || ToolSafety.ifInDoubt(safety)
                .contains("again with the same arguments is safe")).isEqualTo(ToolSafety.freelyCallable(safety));
    }

    @Test
    void anUnsafeToolCannotBeDeclaredWithoutAPersonsApproval() {
        ToolArgs args = new ToolArgs(List.of(ToolArg.integer(SiteTool.SITE_ID, "site").required(),
                ToolArg.string(SiteTool.APPROVAL_TOKEN, "approval")));
        assertThatThrownBy(() -> new SiteTool("wipe", "Wipe", "Wipes.", RepetitionSafety.UNSAFE, true, args, null,
                call -> null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("approval");

        SiteTool gated = new SiteTool("wipe", "Wipe", "Wipes.", RepetitionSafety.UNSAFE, true, args,
                new SiteTool.ApprovalGate(ApprovalAction.DELETE_SITE, id -> "ask"), call -> null);
        assertThat(gated.tool().annotations().destructiveHint()).isTrue();
        assertThat(gated.tool().description()).contains("unsafe");

        ToolArgs noToken = new ToolArgs(List.of(ToolArg.integer(SiteTool.SITE_ID, "site").required()));
        assertThatThrownBy(() -> new SiteTool("wipe", "Wipe", "Wipes.", RepetitionSafety.UNSAFE, true, noToken,
                new SiteTool.ApprovalGate(ApprovalAction.DELETE_SITE, id -> "ask"), call -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(SiteTool.APPROVAL_TOKEN);
    }
}
