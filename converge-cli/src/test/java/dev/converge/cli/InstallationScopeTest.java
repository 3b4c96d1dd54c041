package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceTags;
import dev.converge.provisioning.LocalLeaves;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteRequest;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.tenant.Tenants;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two installations (production and staging, say) with their own stores share one account at
 * every simulated leaf. Their site ids collide (each store's first site is site-1), so only the
 * installation in the tag tells their resources apart: neither adopts, reconciles nor deletes the
 * other's.
 */
class InstallationScopeTest {

    @Test
    void twoInstallationsOnOneLeafAccountNeverAdoptReportNorDeleteEachOthersResources() {
        try (LocalLeaves leaves = LocalLeaves.start(7);
                ProvisioningFixture prod = new ProvisioningFixture(leaves, ResourceTags.of("prod"));
                ProvisioningFixture staging = new ProvisioningFixture(leaves, ResourceTags.of("staging"))) {
            Site prodShop = activeSite(prod.service(), "shop");
            assertThat(prodShop.subject()).isEqualTo("site-1");
            for (String leaf : LeafSim.LEAVES) {
                assertThat(leaves.leafSim().inventory(leaf).current()).as(leaf).singleElement().satisfies(r ->
                        assertThat(tagAt(leaf, ResourceTags.of("prod"), r.tag())).isEqualTo("converge:prod:site-1"));
            }

            // staging asks for the same subdomain: the same natural keys, found at the leaves, with prod's tag
            Site stagingShop = request(staging.service(), "shop");
            assertThat(stagingShop.subject()).as("the same subject as prod's site").isEqualTo("site-1");
            await().atMost(Duration.ofSeconds(30)).until(() -> settled(staging.service(), stagingShop));
            assertThat(state(staging.service(), stagingShop)).as("not adopted: failed").isEqualTo(SiteState.FAILED);
            assertThat(staging.service().sites().view(stagingShop).resources())
                    .as("no entry of staging's owns a leaf resource").noneMatch(r -> "confirmed".equals(r.state()));
            assertIntact(prod, "shop", "converge:prod:site-1");

            Site stagingOwn = activeSite(staging.service(), "staging-shop");
            assertIntact(staging, "staging-shop", "converge:staging:" + stagingOwn.subject());

            // each one's reconcile --delete, with every site id counted as its own, leaves the other's alone
            String stagingReport = reconcile(staging.service(), true);
            assertThat(stagingReport).contains("0 orphan(s) of installation staging").doesNotContain("deleted")
                    .doesNotContain("converge:prod:");
            assertIntact(prod, "shop", "converge:prod:site-1");
            String prodReport = reconcile(prod.service(), true);
            assertThat(prodReport).contains("0 orphan(s) of installation prod").doesNotContain("deleted")
                    .doesNotContain("converge:staging:");
            assertIntact(staging, "staging-shop", "converge:staging:" + stagingOwn.subject());

            // the orphan report's view: the other installation's resources are never a site of ours
            for (var type : staging.service().resources().all()) {
                List<LeafResource> unowned = staging.service().engine().ledger().orphans(type);
                assertThat(unowned).as(type.kind()).isNotEmpty()
                        .allSatisfy(r -> assertThat(Site.idInTag(staging.service().resources().tags(), r.tag())).isZero());
            }

            // prod deletes its own site: its teardown removes only its resources
            prod.service().sites().delete(prodShop.tenantId(), prodShop.id());
            await().atMost(Duration.ofSeconds(30)).until(() -> state(prod.service(), prodShop) == SiteState.DELETED);
            for (String leaf : LeafSim.LEAVES) {
                assertThat(leaves.leafSim().inventory(leaf).current()).as(leaf).singleElement().satisfies(r ->
                        assertThat(tagAt(leaf, ResourceTags.of("staging"), r.tag())).startsWith("converge:staging:"));
            }
        }
    }

    @Test
    void anOrphanOfOursInOurInstallationIsStillReportedAndDeleted() {
        try (LocalLeaves leaves = LocalLeaves.start(8);
                ProvisioningFixture prod = new ProvisioningFixture(leaves, ResourceTags.of("prod"))) {
            Site shop = activeSite(prod.service(), "orphaned");
            var repos = prod.service().resources().get(SiteResources.REPOSITORY);
            repos.create(new dev.converge.ledger.CreateRequest("stray-prod",
                    prod.service().resources().tags().tagFor(shop.subject()), null, java.util.Map.of()));
            repos.create(new dev.converge.ledger.CreateRequest("stray-old", "converge:" + shop.subject(), null,
                    java.util.Map.of()));
            String report = reconcile(prod.service(), true);
            assertThat(report).contains("stray-prod").contains("deleted").doesNotContain("stray-old");
            assertThat(repos.find("stray-prod")).isEmpty();
            assertThat(repos.find("stray-old")).as("an old-format tag is no installation's: left alone").isPresent();
        }
    }

    private static Site activeSite(Provisioning p, String subdomain) {
        Site s = request(p, subdomain);
        await().atMost(Duration.ofSeconds(30)).until(() -> state(p, s) == SiteState.ACTIVE);
        return s;
    }

    private static Site request(Provisioning p, String subdomain) {
        Tenants.Created t = p.tenants().create("t-" + subdomain);
        Lead lead = p.leads().create(t.tenant().id(), "Ada", subdomain + "@example.com");
        var outcome = p.sites().request(t.tenant().id(), new SiteRequest(lead.id(), subdomain, null, null));
        assertThat(outcome).isInstanceOf(Sites.Created.class);
        return ((Sites.Created) outcome).site();
    }

    private static SiteState state(Provisioning p, Site s) {
        return p.sites().get(s.tenantId(), s.id()).orElseThrow().state();
    }

    private static boolean settled(Provisioning p, Site s) {
        return Set.of(SiteState.ACTIVE, SiteState.FAILED, SiteState.NEEDS_ATTENTION).contains(state(p, s));
    }

    /**
     * The tag a leaf's inventory records, as the installation reads it: the hosting leaf (Forge's
     * current API) records a site's isolated user, named from the tag, which reads back as the tag
     * only for the installation that named it.
     */
    private static String tagAt(String leaf, ResourceTags tags, String recorded) {
        return LeafSim.HOSTING.equals(leaf)
                ? dev.converge.provisioning.leaf.HostingDriver.tagOfUser(tags, recorded) : recorded;
    }

    private static void assertIntact(ProvisioningFixture f, String subdomain, String tag) {
        SiteResources res = f.service().resources();
        for (String kind : res.planned()) {
            assertThat(res.get(kind).find(res.naturalKey(kind, subdomain))).as(kind + " of " + subdomain)
                    .hasValueSatisfying(r -> assertThat(r.tag()).isEqualTo(tag));
        }
    }

    private static String reconcile(Provisioning p, boolean delete) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ReconcileCommand.reconcile(p, delete, id -> true, new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }
}
