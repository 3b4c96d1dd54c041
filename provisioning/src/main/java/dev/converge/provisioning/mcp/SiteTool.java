package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.approval.ApprovalAction;
import dev.converge.provisioning.validation.PublicId;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Objects;
import java.util.function.Function;

/**
 * One tool offered to agents, declaring what happens if it runs twice (R14). The declaration
 * sets the MCP annotations (through {@link ToolSafety}), and a tool that is not freely callable
 * ({@link RepetitionSafety#UNSAFE}) cannot be declared without a person's approval gate: the
 * constraint is in the tool, not in its description.
 */
public record SiteTool(String name, String title, String description, RepetitionSafety safety, boolean openWorld,
        ToolArgs args, ApprovalGate approval, Handler handler) {

    /** The argument that names the site an approval is for, and the one that carries it. */
    public static final String SITE_ID = "site_id";
    public static final String APPROVAL_TOKEN = "approval_token";

    /** Does the work of one call, once. Throws {@link ToolRefusal} or {@code InvalidField} to refuse. */
    @FunctionalInterface
    public interface Handler {
        ToolResult handle(Call call);
    }

    /** One call: the tenant it acts for and its validated arguments. */
    public record Call(Tenant tenant, ToolArgs.Arguments args) {
    }

    /** The approval a person must mint before the tool may run, and the words telling how. */
    public record ApprovalGate(ApprovalAction action, Function<String, String> howToApprove) {
    }

    public SiteTool {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(safety, "safety");
        Objects.requireNonNull(args, "args");
        Objects.requireNonNull(handler, "handler");
        if (!ToolSafety.freelyCallable(safety) && approval == null) {
            throw new IllegalArgumentException("tool " + name + " is " + safety.sql()
                    + ": an agent may not call it freely, so it must require a person's approval");
        }
        if (approval != null && (!args.has(SITE_ID) || !args.has(APPROVAL_TOKEN))) {
            throw new IllegalArgumentException("tool " + name + " needs " + SITE_ID + " and " + APPROVAL_TOKEN
                    + " arguments for its approval gate");
        }
    }

    /** The required {@code site_id} argument of a tool that acts on one site. */
    static ToolArg siteIdArg() {
        return ToolArg.id(SITE_ID, PublicId.SITE, "The site's id (site_ and 32 hex digits), as create_site's receipt "
                + "gives it.").required();
    }

    public McpSchema.Tool tool() {
        return McpSchema.Tool.builder()
                .name(name)
                .title(title)
                .description(description + " Repetition safety: " + safety.sql() + ". " + ToolSafety.ifInDoubt(safety))
                .inputSchema(args.schema())
                .annotations(ToolSafety.annotations(safety, title, openWorld))
                .build();
    }
}
