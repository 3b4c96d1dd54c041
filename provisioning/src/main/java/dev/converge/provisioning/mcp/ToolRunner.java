package dev.converge.provisioning.mcp;

import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.approval.Consumption;
import dev.converge.provisioning.validation.InvalidField;
import dev.converge.provisioning.validation.PublicId;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one tool call once and reports; it never retries (a retry is the agent's decision, told
 * by the tool's safety). Arguments are validated first, then a gated tool's approval is used, then
 * the tool runs; whatever goes wrong becomes a tool error the agent can act on.
 */
public final class ToolRunner {
    private static final Logger log = LoggerFactory.getLogger(ToolRunner.class);

    private final Approvals approvals;
    private final BiFunction<Long, PublicId.Ref, Optional<Long>> siteIds;

    /** @param siteIds the database id of a tenant's site a reference names ({@code Sites::idOf}) */
    public ToolRunner(Approvals approvals, BiFunction<Long, PublicId.Ref, Optional<Long>> siteIds) {
        this.approvals = approvals;
        this.siteIds = siteIds;
    }

    public ToolResult run(SiteTool tool, Optional<Tenant> tenant, Map<String, Object> sent) {
        if (tenant.isEmpty()) {
            return ToolResult.refused(new ToolRefusal("unauthenticated", "This connection is not authenticated as a "
                    + "tenant.", "Connect with the tenant's agent token (HTTP), or CONVERGE_AGENT_TOKEN for converge mcp."));
        }
        try {
            ToolArgs.Arguments args = tool.args().validate(sent);
            Long approvalId = tool.approval() == null ? null : useApproval(tool, tenant.get(), args);
            try {
                return tool.handler().handle(new SiteTool.Call(tenant.get(), args));
            } catch (RuntimeException e) {
                if (approvalId != null) {
                    approvals.giveBack(approvalId); // the approved action did not complete: the person's approval stands
                }
                throw e;
            }
        } catch (InvalidField f) {
            return ToolResult.refused(new ToolRefusal("invalid_argument", "Argument '" + f.field() + "' " + problem(f) + ".",
                    "Correct " + f.field() + " and call " + tool.name() + " again; nothing was done.")
                    .with("field", f.field()));
        } catch (ToolRefusal r) {
            return ToolResult.refused(r);
        } catch (RuntimeException e) {
            log.error("tool {} failed for tenant {}", tool.name(), tenant.get().id(), e);
            return ToolResult.refused(new ToolRefusal("internal_error", "The service failed while running "
                    + tool.name() + " (" + e.getClass().getSimpleName() + ").", ToolSafety.ifInDoubt(tool.safety())));
        }
    }

    private Long useApproval(SiteTool tool, Tenant tenant, ToolArgs.Arguments args) {
        PublicId.Ref ref = args.ref(SiteTool.SITE_ID);
        long siteId = siteIds.apply(tenant.id(), ref).orElseThrow(() -> SiteStatusTool.notFound(ref));
        Consumption c = approvals.consume(tenant.id(), siteId, tool.approval().action(), args.string(SiteTool.APPROVAL_TOKEN));
        if (c instanceof Consumption.Granted g) {
            return g.approvalId();
        }
        String shown = ref.text();
        String how = tool.approval().howToApprove().apply(shown);
        String action = tool.approval().action().sql();
        ToolRefusal refusal = switch (((Consumption.Refused) c).reason()) {
            case MISSING -> new ToolRefusal("approval_required", tool.name() + " cannot be undone, so it runs only with "
                    + "a one-time approval from a person, and none was given.", how);
            case UNKNOWN -> new ToolRefusal("approval_invalid", "That approval token does not approve " + action
                    + " for site " + shown + " of this tenant.", how);
            case USED -> new ToolRefusal("approval_used", "That approval was already used: each approval permits one "
                    + "call.", "Check the site with get_site_status; if it still needs doing, " + how);
            case EXPIRED -> new ToolRefusal("approval_expired", "That approval expired before it was used.", how);
        };
        throw refusal.with(SiteTool.SITE_ID, shown);
    }

    private static String problem(InvalidField f) {
        String m = f.getMessage();
        return m.startsWith(f.field() + " ") ? m.substring(f.field().length() + 1) : m;
    }
}
