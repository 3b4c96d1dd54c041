package dev.converge.provisioning.service;

import dev.converge.Converge;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.conversation.Conversations;
import dev.converge.provisioning.event.Events;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.hand.OperatorActions;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.limits.Limits;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * What the HTTP API, the MCP tools, the assistant and the approval desk reach on one node: its
 * store, its engine and the domain services. The node itself ({@code Provisioning}) assembles them
 * and sits above every package that uses them, so none of those packages depends on the assembly.
 */
public interface ProvisioningService {
    Store store();

    ProvisioningConfig config();

    PrometheusMeterRegistry meters();

    Converge engine();

    Tenants tenants();

    Leads leads();

    Sites sites();

    /** A person's retries and settlements when automation stops. */
    OperatorActions hand();

    Events events();

    SiteResources resources();

    SiteJobs jobs();

    Limits limits();

    Conversations conversations();
}
