package dev.converge.proof.check;

import dev.converge.leafsim.inventory.InventoryEvent;
import dev.converge.leafsim.inventory.InventorySnapshot;
import dev.converge.leafsim.inventory.SimResource;
import dev.converge.ledger.Ledger;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import dev.converge.store.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that the world converged, trusting the leaves: every accepted request has a site in a
 * final state; an active site has exactly one of each resource at its leaves and one welcome
 * email, and its lead is a customer; a failed or deleted site has nothing left; no leaf holds
 * what no site may hold; no create ever happened twice for one natural key; no ledger entry is
 * left unresolved and no token half-used.
 */
public final class ConvergenceCheck {
    private static final int EXAMPLES = 5;

    /** The leaf of each resource kind, as the simulated leaves name them. */
    private static final Map<String, String> LEAF_OF_KIND = Map.of(SiteResources.REPOSITORY, "githost",
            SiteResources.HOSTING, "hosting", SiteResources.LICENSE, "license");


    private final Store store;
    private final SiteResources resources;
    private final GroundTruth truth;
    private final Map<String, Integer> counts = new LinkedHashMap<>();
    private final Map<String, List<String>> details = new LinkedHashMap<>();

    public ConvergenceCheck(Store store, SiteResources resources, GroundTruth truth) {
        this.store = store;
        this.resources = resources;
        this.truth = truth;
        CheckReport.KEYS.forEach(k -> {
            counts.put(k, 0);
            details.put(k, new ArrayList<>());
        });
    }

    private void violation(String key, String example) {
        counts.merge(key, 1, Integer::sum);
        if (details.get(key).size() < EXAMPLES) {
            details.get(key).add(example);
        }
    }

    /** @param accepted public ids of the sites the client was told were accepted (202) */
    public CheckReport run(Set<String> accepted) {
        return run(accepted, Set.of());
    }

    /**
     * @param accepted public ids of the sites the client was told were accepted (202)
     * @param deletes  public ids of the sites whose delete the client was told was accepted (202): each must
     *                 end deleted
     */
    public CheckReport run(Set<String> accepted, Set<String> deletes) {
        CheckData data = CheckData.load(store);
        Map<String, Site> byPublicId = new HashMap<>();
        data.sites().values().forEach(s -> byPublicId.put(s.publicId(), s));
        Map<String, InventorySnapshot> inventories = new LinkedHashMap<>();
        for (String leaf : LEAF_OF_KIND.values().stream().sorted().toList()) {
            InventorySnapshot inv = truth.inventory(leaf);
            inventories.put(leaf, leaf.equals(LEAF_OF_KIND.get(SiteResources.HOSTING)) ? readUsers(inv) : inv);
        }
        Map<String, Long> emails = truth.welcomeEmailsBySite();
        Map<String, Long> reminders = truth.remindersBySite();
        Set<String> databases = truth.databases();
        boolean withDatabase = resources.planned().contains(SiteResources.DATABASE);

        for (String id : accepted) {
            if (!byPublicId.containsKey(id)) {
                violation("lost", "site " + id + " was accepted but does not exist");
            }
        }
        for (String id : deletes) {
            Site site = byPublicId.get(id);
            if (site != null && (site.state() == SiteState.ACTIVE || site.state() == SiteState.FAILED)) {
                violation("lost", "the delete of site " + id + " was accepted but the site is " + site.state().sql());
            }
        }
        Map<String, Site> ownerOfKey = new HashMap<>();
        for (Site site : data.sites().values()) {
            for (String kind : resources.planned()) {
                ownerOfKey.put(kind + "|" + resources.naturalKey(kind, site.subdomain()), site);
            }
            checkSite(site, data, inventories, emails, databases, withDatabase);
            checkTrial(site, reminders.getOrDefault(Long.toString(site.id()), 0L));
        }
        for (String id : reminders.keySet()) {
            if (!data.sites().containsKey(Long.parseLong(id))) {
                violation("status_mismatches", "a trial reminder went out for site " + id + ", which does not exist");
            }
        }
        checkOrphans(inventories, databases, ownerOfKey, data);
        for (LedgerEntry e : data.ledger()) {
            if (e.state() == LedgerState.CLAIMED || e.state() == LedgerState.UNCERTAIN || e.state() == LedgerState.DELETING) {
                violation("unconfirmed", e.kind() + " '" + e.naturalKey() + "' left " + e.state().sql());
            }
        }
        for (String token : data.halfUsedTokens()) {
            violation("token_leaks", token);
        }
        for (String flow : data.overdueFlows()) {
            violation("stuck", flow);
        }
        for (String job : data.failedUnrun()) {
            violation("lost", job);
        }
        Map<String, CheckReport.LeafTally> tallies = new LinkedHashMap<>();
        inventories.forEach((leaf, inv) -> {
            long ours = inv.current().stream().filter(r -> ours(r.tag())).count();
            long creates = inv.history().stream().filter(e -> e.kind() == InventoryEvent.Kind.CREATED && ours(e.tag())).count();
            long confirmed = data.ledger().stream()
                    .filter(e -> e.state() == LedgerState.CONFIRMED && leaf.equals(LEAF_OF_KIND.get(e.kind()))).count();
            tallies.put(leaf, new CheckReport.LeafTally(ours, creates, confirmed, inv.current().size() - ours));
        });
        if (withDatabase) {
            tallies.put("postgres", new CheckReport.LeafTally(databases.size(), -1, data.ledger().stream()
                    .filter(e -> e.state() == LedgerState.CONFIRMED && e.kind().equals(SiteResources.DATABASE)).count(), 0));
        }
        Map<String, Integer> byState = new LinkedHashMap<>();
        for (SiteState s : SiteState.values()) {
            byState.put(s.sql(), 0);
        }
        data.sites().values().forEach(s -> byState.merge(s.state().sql(), 1, Integer::sum));
        long expired = data.sites().values().stream()
                .filter(x -> x.subscription() == dev.converge.provisioning.site.Subscription.EXPIRED).count();
        CheckReport.Trials trials = new CheckReport.Trials(data.sites().values().stream()
                .filter(x -> x.subscription() == dev.converge.provisioning.site.Subscription.SUBSCRIBED).count(),
                expired, reminders.values().stream().mapToLong(Long::longValue).sum(), data.sites().values().stream()
                        .filter(x -> x.subscription() == dev.converge.provisioning.site.Subscription.EXPIRED
                                && reminders.getOrDefault(Long.toString(x.id()), 0L) == 0).count());
        return new CheckReport(counts, details, byState, tallies, emails.values().stream().mapToLong(Long::longValue).sum(),
                trials);
    }

    /**
     * A trial ends once: an expired site is deleted (its leaves are checked with the rest), a
     * subscribed one is never expired, and no site gets a second reminder.
     */
    private void checkTrial(Site site, long reminders) {
        String who = "site " + site.id() + " (" + site.subdomain() + ", " + site.state().sql() + ", "
                + site.subscription().sql() + ")";
        if (reminders > 1) {
            violation("duplicated", who + ": " + reminders + " trial reminders");
        }
        if (site.subscription() == dev.converge.provisioning.site.Subscription.EXPIRED
                && site.state() != SiteState.DELETED && site.state() != SiteState.NEEDS_ATTENTION) {
            violation("status_mismatches", who + " expired but is not deleted");
        }
        if (site.subscription() == dev.converge.provisioning.site.Subscription.SUBSCRIBED && site.subscribedAt() == null) {
            violation("status_mismatches", who + " is subscribed with no time of subscription");
        }
        if (reminders > 0 && site.trialEndsAt() == null) {
            violation("status_mismatches", who + " got a trial reminder but has no trial deadline");
        }
    }

    private void checkSite(Site site, CheckData data, Map<String, InventorySnapshot> inventories, Map<String, Long> emails,
            Set<String> databases, boolean withDatabase) {
        String who = "site " + site.id() + " (" + site.subdomain() + ", " + site.state().sql() + ")";
        if (site.state() == SiteState.PROVISIONING || site.state() == SiteState.DELETING) {
            violation("stuck", who + " never reached a final state");
            return;
        }
        long mails = emails.getOrDefault(Long.toString(site.id()), 0L);
        if (mails > 1) {
            violation("duplicated", who + ": " + mails + " welcome emails");
        }
        for (String kind : resources.planned()) {
            String key = resources.naturalKey(kind, site.subdomain());
            long held;
            if (kind.equals(SiteResources.DATABASE)) {
                held = databases.contains(key) ? 1 : 0;
            } else {
                // what carries this site's tag is its own; a resource under the same name with another tag
                // is someone else's (the site should have failed with a conflict), not ours to count
                InventorySnapshot inv = inventories.get(LEAF_OF_KIND.get(kind));
                String tag = resources.tags().tagFor(site.subject());
                held = inv.currentOf(key).stream().filter(r -> tag.equals(r.tag())).count();
                int overlapping = overlappingCreates(inv, key, tag);
                if (overlapping > 0) {
                    violation("duplicated", who + ": " + (overlapping + 1) + " of " + kind + " '" + key
                            + "' existed at once");
                }
            }
            if (site.state() == SiteState.ACTIVE && held != 1) {
                violation("status_mismatches", who + " is active but its leaf holds " + held + " " + kind);
            }
            if ((site.state() == SiteState.FAILED || site.state() == SiteState.DELETED) && held != 0) {
                violation("orphans", who + " still has " + held + " " + kind + " '" + key + "'");
            }
        }
        if (site.state() == SiteState.FAILED && mails > 0) {
            violation("status_mismatches", who + " failed but " + mails + " welcome email(s) went out");
        }
        if (site.state() == SiteState.ACTIVE && mails != 1) {
            violation("status_mismatches", who + " is active but " + mails + " welcome emails went out");
        }
        boolean customer = "customer".equals(data.leadStatus().get(site.leadId()));
        boolean anyActive = data.sites().values().stream()
                .anyMatch(s -> s.leadId() == site.leadId() && s.state() == SiteState.ACTIVE);
        if (customer != anyActive) {
            violation("status_mismatches", "lead " + site.leadId() + " is " + (customer ? "a customer" : "a lead")
                    + " but has " + (anyActive ? "an" : "no") + " active site");
        }
    }

    /**
     * The hosting leaf's inventory with each site's mark as a tag: a site made through Forge's current
     * API is marked by the isolated user it runs as, which reads back as our tag (the same function
     * the driver uses, applied to what the leaf recorded); a v1 site's mark is its tag already.
     */
    private InventorySnapshot readUsers(InventorySnapshot inv) {
        java.util.function.UnaryOperator<String> read = mark -> dev.converge.provisioning.leaf.HostingDriver
                .tagOfUser(resources.tags(), mark);
        return new InventorySnapshot(inv.leaf(), inv.current().stream().map(r -> new SimResource(r.id(), r.scope(),
                r.naturalKey(), read.apply(r.tag()), r.createdAt(), r.fields())).toList(),
                inv.history().stream().map(e -> new InventoryEvent(e.seq(), e.at(), e.kind(), e.id(), e.scope(),
                        e.naturalKey(), read.apply(e.tag()))).toList());
    }

    /**
     * Creates of the key (with this tag) made while another of it still existed, in the leaf's
     * order of events. A create after the earlier one was deleted (a person's retry of a failed site,
     * a site requested again after its delete) is a new resource, not a duplicate.
     */
    static int overlappingCreates(InventorySnapshot inv, String key, String tag) {
        int live = 0;
        int overlapping = 0;
        for (InventoryEvent e : inv.history().stream().filter(e -> key.equals(e.naturalKey()) && tag.equals(e.tag()))
                .sorted(java.util.Comparator.comparingLong(InventoryEvent::seq)).toList()) {
            if (e.kind() == InventoryEvent.Kind.CREATED) {
                overlapping += live > 0 ? 1 : 0;
                live++;
            } else if (e.kind() == InventoryEvent.Kind.DELETED) {
                live = Math.max(0, live - 1);
            }
        }
        return overlapping;
    }

    private void checkOrphans(Map<String, InventorySnapshot> inventories, Set<String> databases,
            Map<String, Site> ownerOfKey, CheckData data) {
        LedgerClaims claims = new LedgerClaims(data.ledger());
        LEAF_OF_KIND.forEach((kind, leaf) -> {
            for (SimResource r : inventories.get(leaf).current()) {
                if (!ours(r.tag())) {
                    continue; // someone else's resource, not an orphan of ours
                }
                Site owner = ownerOfKey.get(kind + "|" + r.naturalKey());
                if (owner == null) {
                    violation("orphans", leaf + " holds '" + r.naturalKey() + "' (id " + r.id() + ") that no site asked for");
                } else if (owner.state() == SiteState.FAILED || owner.state() == SiteState.DELETED) {
                    continue; // counted with its site
                } else if (!claims.accountsFor(kind, leafIdOf(kind, r), r.naturalKey())) {
                    violation("orphans", leaf + " holds '" + r.naturalKey() + "' (id " + r.id()
                            + ") that no ledger entry records");
                }
            }
        });
        for (String db : databases) {
            if (!ownerOfKey.containsKey(SiteResources.DATABASE + "|" + db)) {
                violation("orphans", "postgres holds database " + db + " that no site asked for");
            }
        }
    }

    private boolean ours(String tag) {
        return resources.tags().isOurs(tag);
    }

    /** The ledger's leaf id of a resource as the simulated leaf reports it. */
    private static String leafIdOf(String kind, SimResource r) {
        return kind.equals(SiteResources.REPOSITORY) && r.scope() != null ? r.scope() + "/" + r.naturalKey() : r.id();
    }
}
