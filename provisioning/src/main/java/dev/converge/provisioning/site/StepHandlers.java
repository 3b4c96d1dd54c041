package dev.converge.provisioning.site;

import dev.converge.Converge;
import dev.converge.provisioning.event.Events;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.mail.SmtpMailer;
import dev.converge.store.Store;

/**
 * Handlers a node registers in place of the site steps' own create, welcome and confirm handlers.
 * The service has none and never sets one: it is there for the proof, whose deliberately naive
 * steps (no ledger, no claim, no token) must show the damage the convergence checker exists to see.
 */
public interface StepHandlers {
    /** Registers the handlers of {@code jobs.createResource}, {@code jobs.welcome} and {@code jobs.confirm}. */
    void register(Converge.Builder b, SiteJobs jobs, Parts parts);

    /** What the service's own steps work with. */
    record Parts(Store store, SiteStore sites, Leads leads, Events events, SiteResources resources, SmtpMailer mailer,
            Receipts receipts) {
    }
}
