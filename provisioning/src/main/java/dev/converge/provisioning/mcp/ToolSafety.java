package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * What a tool's repetition safety (R14) tells an agent, derived in this one place: the MCP
 * annotations ({@code readOnlyHint}, {@code idempotentHint}, {@code destructiveHint}) and what to
 * do when a call's outcome is in doubt. A tool declares its safety; it never sets these by hand.
 */
public final class ToolSafety {
    private ToolSafety() {
    }

    public static McpSchema.ToolAnnotations annotations(RepetitionSafety safety, String title, boolean openWorld) {
        return McpSchema.ToolAnnotations.builder()
                .title(title)
                .readOnlyHint(safety == RepetitionSafety.READ_ONLY)
                .idempotentHint(idempotent(safety))
                .destructiveHint(destructive(safety))
                .openWorldHint(openWorld)
                .build();
    }

    /** Whether calling again with the same arguments has no further effect. */
    static boolean idempotent(RepetitionSafety safety) {
        return safety != RepetitionSafety.UNSAFE;
    }

    /**
     * Whether the tool may destroy or overwrite something: a naturally idempotent operation is a
     * delete or a replace, an unsafe one may do anything; reads and unique creates only add.
     */
    static boolean destructive(RepetitionSafety safety) {
        return safety == RepetitionSafety.NATURALLY_IDEMPOTENT || safety == RepetitionSafety.UNSAFE;
    }

    /** What an agent should do when a call failed and it cannot tell whether it took effect. */
    /**
     * Whether an AI agent may call an operation of this safety without a person's approval:
     * everything but {@link RepetitionSafety#UNSAFE}, which is never repeated blindly.
     */
    public static boolean freelyCallable(RepetitionSafety safety) {
        return safety != RepetitionSafety.UNSAFE;
    }

    public static String ifInDoubt(RepetitionSafety safety) {
        return switch (safety) {
            case READ_ONLY -> "This tool only reads: calling it again is safe.";
            case NATURALLY_IDEMPOTENT -> "Calling it again with the same arguments is safe: it ends in the same state.";
            case IDEMPOTENT_BY_CONSTRAINT -> "Calling it again with the same arguments is safe: it returns the same "
                    + "result instead of creating a second one.";
            case IDEMPOTENT_BY_KEY -> "Calling it again with the same arguments is safe: the service deduplicates it.";
            case IDEMPOTENT_BY_TOKEN -> "Calling it again is safe: its permission is spent at most once, so it cannot "
                    + "happen twice.";
            case UNSAFE -> "Do not call it again blindly: check the site with get_site_status first, and ask a person "
                    + "if it is unclear what happened.";
        };
    }
}
