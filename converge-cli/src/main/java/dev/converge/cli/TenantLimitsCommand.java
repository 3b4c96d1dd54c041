package dev.converge.cli;

import dev.converge.provisioning.limits.Limits;
import dev.converge.provisioning.limits.TenantLimits;
import dev.converge.store.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code converge tenant update ID --max-sites N ...}: a tenant's quotas and write rate (servers see it within 30 s). */
@Command(name = "update", mixinStandardHelpOptions = true,
        description = "Set a tenant's limits; running servers apply them within 30 seconds. Defaults: "
                + "sites 1000, leads 10000, open approvals 20, 3000 writes a minute.")
final class TenantLimitsCommand extends StoreCommand {
    @Parameters(index = "0", description = "The tenant's id.")
    long tenantId;

    @Option(names = "--max-sites", description = "Sites it may hold (deleted ones do not count).")
    Integer maxSites;

    @Option(names = "--max-leads", description = "Leads it may hold.")
    Integer maxLeads;

    @Option(names = "--max-open-approvals", description = "Delete approvals minted and not yet used or expired.")
    Integer maxOpenApprovals;

    @Option(names = "--writes-per-minute", description = "Writes (POST, DELETE, MCP calls) a minute, per API node.")
    Integer writesPerMinute;

    @Override
    int run(Store store) {
        Limits limits = new Limits(store);
        if (!limits.update(tenantId, maxSites, maxLeads, maxOpenApprovals, writesPerMinute)) {
            throw new IllegalArgumentException("there is no tenant " + tenantId);
        }
        TenantLimits now = limits.of(tenantId);
        spec.commandLine().getOut().println("tenant " + tenantId + ": sites " + now.maxSites() + ", leads "
                + now.maxLeads() + ", open approvals " + now.maxOpenApprovals() + ", writes a minute "
                + now.writesPerMinute());
        spec.commandLine().getOut().flush();
        return 0;
    }
}
