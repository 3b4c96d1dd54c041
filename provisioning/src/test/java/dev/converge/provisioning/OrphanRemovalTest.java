package dev.converge.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.leafsim.inventory.SimResource;
import dev.converge.ledger.CreateRequest;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteRequest;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The recurring job pv.remove-orphans: a resource tagged with a deleted site that no ledger entry
 * owns (what a stale delivery's create leaves when it lands after the teardown) is deleted at its
 * leaf; the orphans of a living site, untagged resources and the sites' own resources are not.
 */
class OrphanRemovalTest {

    @Test
    void theOrphansOfADeletedSiteAreRemovedAndNothingElse() {
        try (ProvisioningFixture f = ProvisioningFixture.withNode(n -> n.withRemoveOrphansEvery(Duration.ofSeconds(1)))) {
            Provisioning p = f.service();
            long tenant = p.tenants().create("acme").tenant().id();
            Site living = provisioned(p, tenant, "living");
            Site gone = provisioned(p, tenant, "gone");
            p.sites().delete(tenant, gone.id());
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    p.sites().get(tenant, gone.id()).orElseThrow().state() == SiteState.DELETED);

            var repos = p.resources().get(SiteResources.REPOSITORY);
            var licenses = p.resources().get(SiteResources.LICENSE);
            var ledger = p.engine().ledger();
            // created after the teardown, as by a delivery that lost its lease: no ledger entry will own them
            repos.create(new CreateRequest("late-repo", ledger.tagFor(Site.subjectOf(gone.id())), null, Map.of()));
            licenses.create(new CreateRequest("late.example.test", ledger.tagFor(Site.subjectOf(gone.id())), "k-late", Map.of()));
            repos.create(new CreateRequest("stray-of-living", ledger.tagFor(Site.subjectOf(living.id())), null, Map.of()));
            repos.create(new CreateRequest("stray-nobodys", null, null, Map.of()));

            await().atMost(Duration.ofSeconds(30)).until(() -> at(f, LeafSim.GITHOST, "late-repo") == 0
                    && at(f, LeafSim.LICENSE, "late.example.test") == 0);
            long runs = succeededRuns(p);
            await().atMost(Duration.ofSeconds(30)).until(() -> succeededRuns(p) > runs); // one more whole pass
            assertThat(at(f, LeafSim.GITHOST, "stray-of-living")).as("a living site's orphan is the operator's call").isEqualTo(1);
            assertThat(at(f, LeafSim.GITHOST, "stray-nobodys")).as("an untagged resource is never ours").isEqualTo(1);
            assertThat(f.leaves().leafSim().inventory(LeafSim.GITHOST).current())
                    .as("the living site's own repository, owned by its entry")
                    .anyMatch(r -> r.tag() != null && r.tag().equals(ledger.tagFor(Site.subjectOf(living.id())))
                            && !r.naturalKey().equals("stray-of-living"));
            assertThat(p.sites().get(tenant, living.id()).orElseThrow().state()).isEqualTo(SiteState.ACTIVE);
        }
    }

    @Test
    void aLeafThatCannotBeListedFailsTheRunAfterTheOtherLeavesAreDoneAndTheRetryFinishesIt() {
        try (ProvisioningFixture f = ProvisioningFixture.withNode(n -> n.withRemoveOrphansEvery(Duration.ofHours(1)))) {
            Provisioning p = f.service();
            long tenant = p.tenants().create("acme").tenant().id();
            Site gone = provisioned(p, tenant, "gone");
            p.sites().delete(tenant, gone.id());
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    p.sites().get(tenant, gone.id()).orElseThrow().state() == SiteState.DELETED);
            String tag = p.engine().ledger().tagFor(Site.subjectOf(gone.id()));
            p.resources().get(SiteResources.REPOSITORY).create(new CreateRequest("late-repo", tag, null, Map.of()));
            p.resources().get(SiteResources.LICENSE).create(new CreateRequest("late.example.test", tag, "k-late", Map.of()));
            f.leaves().leafSim().faults().add(FaultRule.of(LeafSim.LICENSE, "list", FaultType.ERROR_BEFORE));

            var meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
            OrphanRemoval removal = new OrphanRemoval(p.store(), p.resources(), () -> p.engine().ledger(), meters);
            for (dev.converge.ledger.ResourceType type : p.resources().all()) {
                // at zero before the first removal: an alert on its increase then sees the first one too
                assertThat(meters.find("converge_orphans_removed").tag("kind", type.kind()).counter())
                        .as("the counter of %s, before any removal", type.kind()).isNotNull()
                        .satisfies(c -> assertThat(c.count()).isZero());
            }
            assertThatThrownBy(removal::removeNow).as("a run that could not see every leaf does not succeed")
                    .hasMessageContaining("orphan removal incomplete (1 removed)").hasMessageContaining("license not listed");
            assertThat(at(f, LeafSim.GITHOST, "late-repo")).as("the leaves that could be listed are done").isZero();
            assertThat(at(f, LeafSim.LICENSE, "late.example.test")).isEqualTo(1);

            f.leaves().leafSim().faults().clear();
            assertThat(removal.removeNow()).isEqualTo(1);
            assertThat(at(f, LeafSim.LICENSE, "late.example.test")).isZero();
            assertThat(removal.removeNow()).as("nothing left: a second run does nothing").isZero();
            assertThat(meters.get("converge_orphans_removed").tag("kind", SiteResources.LICENSE).counter().count())
                    .isEqualTo(1.0);
            assertThat(meters.get("converge_orphans_removed").tag("kind", SiteResources.REPOSITORY).counter().count())
                    .isEqualTo(1.0);
        }
    }

    @Test
    void withoutRemovalTheOrphansStayAndNoJobIsScheduled() {
        try (ProvisioningFixture f = ProvisioningFixture.withNode(n -> n.withRemoveOrphansEvery(null))) {
            Provisioning p = f.service();
            assertThat(p.engine().recurring().view(OrphanRemoval.NAME)).isEmpty();
        }
        try (ProvisioningFixture f = new ProvisioningFixture()) {
            assertThat(f.service().engine().recurring().view(OrphanRemoval.NAME)).as("on by default")
                    .hasValueSatisfying(v -> assertThat(v.schedule()).isEqualTo("every PT10M"));
        }
    }

    private static Site provisioned(Provisioning p, long tenant, String subdomain) {
        Lead lead = p.leads().create(tenant, "Ada " + subdomain, subdomain + "@example.com");
        Site site = ((Sites.Created) p.sites().request(tenant, new SiteRequest(lead.id(), subdomain, null, null))).site();
        await().atMost(Duration.ofSeconds(30)).until(() -> p.sites().get(tenant, site.id()).orElseThrow().state() == SiteState.ACTIVE);
        return site;
    }

    private static long at(ProvisioningFixture f, String leaf, String naturalKey) {
        return f.leaves().leafSim().inventory(leaf).current().stream().map(SimResource::naturalKey)
                .filter(naturalKey::equals).count();
    }

    private static long succeededRuns(Provisioning p) {
        return p.store().withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT COUNT(*) FROM cv_job WHERE kind = ? AND state = 'succeeded'")) {
                ps.setString(1, OrphanRemoval.NAME);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }
}
