package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceTags;
import dev.converge.ledger.ResourceExists;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The drivers against answers written from the providers' own documentation (samples/), served
 * over real HTTP on loopback: what each driver sends, how it pages, and how it reads a rate limit.
 */
class ProviderContractTest {
    static final String TOKEN = "ghp_CONTRACT_SECRET_0042";
    SampleServer server;

    @BeforeEach
    void start() {
        server = new SampleServer();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpLeafConfig http() {
        return HttpLeafConfig.of(server.url(), ApiToken.of(TOKEN));
    }

    private GitHostDriver gitHost() {
        return new GitHostDriver(new GitHostConfig(http(), "octocat", false));
    }

    private HostingDriver forge() {
        return new HostingDriver(HostingConfig.of(http(), "1"));
    }

    private HostingDriver forgeCurrent() {
        return new HostingDriver(HostingConfig.current(http(), "acme", "1"));
    }

    private LicenseDriver license() {
        return new LicenseDriver(new LicenseConfig(http()));
    }

    // --- git host (GitHub REST API 2022-11-28) ---

    @Test
    void gitHostSendsGitHubsMediaTypeApiVersionAndBearerTokenAndReadsTheDocumentedRepository() {
        server.route("POST", "/orgs/octocat/repos", "github/create-org-repo-201.json");

        LeafResource repo = gitHost().create("Hello-World", "This your first repo!", null);

        assertThat(repo.leafId()).isEqualTo("octocat/Hello-World");
        assertThat(repo.naturalKey()).isEqualTo("Hello-World");
        assertThat(repo.tag()).isEqualTo("This your first repo!");
        assertThat(repo.data()).containsEntry("id", 1296269L);
        SampleServer.Recorded sent = server.requests.get(0);
        assertThat(sent.headers().get("Accept")).containsExactly("application/vnd.github+json");
        assertThat(sent.headers().get("X-GitHub-Api-Version")).containsExactly("2022-11-28");
        assertThat(sent.headers().get("Authorization")).containsExactly("Bearer " + TOKEN);
        assertThat(sent.body()).contains("\"name\":\"Hello-World\"");
    }

    @Test
    void gitHostReadsTheDocumentedNameTakenAnswerAsResourceExists() {
        server.route("POST", "/orgs/octocat/repos", "github/create-org-repo-422-exists.json");

        assertThatThrownBy(() -> gitHost().create("Hello-World", "t", null)).isInstanceOf(ResourceExists.class);
    }

    @Test
    void gitHostLooksARepositoryUpByItsDocumentedPath() {
        server.route("GET", "/repos/octocat/Hello-World", "github/get-repo-200.json");

        assertThat(gitHost().find("Hello-World")).hasValueSatisfying(r -> assertThat(r.leafId())
                .isEqualTo("octocat/Hello-World"));
        assertThat(gitHost().find("Missing")).isEmpty();
        assertThat(server.requests).allSatisfy(r -> assertThat(r.headers().get("X-GitHub-Api-Version"))
                .containsExactly(GitHostDriver.API_VERSION));
    }

    @Test
    void gitHostListFollowsTheLinkHeaderUntilThereIsNoNextPage() {
        server.route("GET", "/orgs/octocat/repos?per_page=100", "github/list-org-repos-page1.json")
                .route("GET", "/orgs/octocat/repos?per_page=100&page=2", "github/list-org-repos-page2.json");

        List<LeafResource> repos = gitHost().list();

        assertThat(repos).extracting(LeafResource::naturalKey).containsExactly("Hello-World", "Spoon-Knife");
        assertThat(server.requests).extracting(SampleServer.Recorded::pathAndQuery)
                .containsExactly("/orgs/octocat/repos?per_page=100", "/orgs/octocat/repos?per_page=100&page=2");
        assertThat(server.requests.get(1).headers().get("Authorization")).containsExactly("Bearer " + TOKEN);
    }

    @Test
    void aNextLinkToAnotherOriginIsNotFollowedSoTheTokenStaysHome() {
        try (SampleServer elsewhere = new SampleServer()) {
            elsewhere.route("GET", "/orgs/octocat/repos?per_page=100&page=2", "github/list-org-repos-page2.json");
            server.origin = elsewhere.url();
            server.route("GET", "/orgs/octocat/repos?per_page=100", "github/list-org-repos-page1.json");

            assertThatThrownBy(() -> gitHost().list()).isInstanceOfSatisfying(LeafRejected.class, r -> {
                assertThat(r.isTransient()).isFalse();
                assertThat(r.getMessage()).contains("next-page link").doesNotContain(TOKEN);
            });
            assertThat(elsewhere.requests).isEmpty();
        }
    }

    @Test
    void gitHostsPrimaryRateLimitIsThrottledUntilItsResetNotAFailure() {
        server.resetEpochSecond = Instant.now().getEpochSecond() + 30;
        server.route("POST", "/orgs/octocat/repos", "github/primary-rate-limit-403.json");

        assertThatThrownBy(() -> gitHost().create("Hello-World", "t", null))
                .isInstanceOfSatisfying(LeafThrottled.class, t -> {
                    assertThat(t.isTransient()).isTrue();
                    assertThat(t.status()).isEqualTo(403);
                    assertThat(t.delay()).isBetween(Duration.ofSeconds(25), Duration.ofSeconds(31));
                    assertThat(t.getMessage()).doesNotContain(TOKEN);
                });
    }

    @Test
    void gitHostsSecondaryRateLimitWaitsItsRetryAfter() {
        server.route("GET", "/orgs/octocat/repos?per_page=100", "github/secondary-rate-limit-429.json");

        assertThatThrownBy(() -> gitHost().list()).isInstanceOfSatisfying(LeafThrottled.class,
                t -> assertThat(t.delay()).isEqualTo(Duration.ofSeconds(60)));
    }

    @Test
    void aValidationAnswerToAReadIsPermanentNotARateLimit() {
        server.route("GET", "/repos/octocat/Hello-World", "github/create-org-repo-422-exists.json");
        // 422 on a read: permanent, and not mistaken for a rate limit
        assertThatThrownBy(() -> gitHost().find("Hello-World")).isInstanceOfSatisfying(LeafRejected.class, r -> {
            assertThat(r).isNotInstanceOf(LeafThrottled.class);
            assertThat(r.isTransient()).isFalse();
        });
    }

    // --- hosting (Laravel Forge) ---

    @Test
    void forgeCreateReadsTheDocumentedSiteAndSendsJsonWithTheBearerToken() {
        server.route("POST", "/servers/1/sites", "forge/create-site-200.json");

        LeafResource site = forge().create("site.com", "converge:site-2", null);

        assertThat(site.leafId()).isEqualTo("2");
        assertThat(site.tag()).isEqualTo("converge:site-2");
        SampleServer.Recorded sent = server.requests.get(0);
        assertThat(sent.headers().get("Accept")).containsExactly("application/json");
        assertThat(sent.headers().get("Content-Type")).containsExactly("application/json");
        assertThat(sent.headers().get("Authorization")).containsExactly("Bearer " + TOKEN);
        assertThat(sent.body()).contains("\"domain\":\"site.com\"", "\"tags\":[\"converge:site-2\"]");
    }

    @Test
    void forgeReadsTheDocumentedDomainTakenAnswerAsResourceExists() {
        server.route("POST", "/servers/1/sites", "forge/create-site-422-taken.json");

        assertThatThrownBy(() -> forge().create("site.com", "t", null)).isInstanceOf(ResourceExists.class);
    }

    @Test
    void forgeListFollowsTheCursorUntilNextCursorIsNull() {
        server.route("GET", "/servers/1/sites?page%5Bsize%5D=100", "forge/list-sites-page1.json")
                .route("GET", "/servers/1/sites?page%5Bsize%5D=100&page%5Bcursor%5D="
                        + "eyJzaXRlcy5pZCI6MiwiX3BvaW50c1RvTmV4dEl0ZW1zIjp0cnVlfQ", "forge/list-sites-page2.json");

        List<LeafResource> sites = forge().list();

        assertThat(sites).extracting(LeafResource::naturalKey).containsExactly("site.com", "second.com");
        assertThat(sites).extracting(LeafResource::leafId).containsExactly("2", "3");
        assertThat(server.requests).hasSize(2);
        assertThat(forge().find("second.com")).isPresent();
    }

    @Test
    void forgesTooManyRequestsIsThrottledForItsRetryAfter() {
        server.route("POST", "/servers/1/sites", "forge/too-many-requests-429.json");

        assertThatThrownBy(() -> forge().create("site.com", "t", null)).isInstanceOfSatisfying(LeafThrottled.class,
                t -> assertThat(t.delay()).isEqualTo(Duration.ofSeconds(42)));
    }

    @Test
    void forgesCurrentApiCreatesAnIsolatedSiteUnderTheUserNamedFromOurTagAndReadsTheTagBack() {
        server.route("POST", "/orgs/acme/servers/1/sites", "forge/current-create-site-201.json");
        String tag = ResourceTags.defaults().tagFor("site-2");

        LeafResource site = forgeCurrent().create("site.com", tag, null);

        assertThat(site.leafId()).isEqualTo("2");
        assertThat(site.naturalKey()).isEqualTo("site.com");
        assertThat(site.tag()).as("read back from the isolated user the API returns").isEqualTo(tag);
        String user = forgeCurrent().userFor(tag);
        assertThat(user).matches("cv[0-9a-f]{8}-site-2").hasSizeLessThanOrEqualTo(32);
        assertThat(new HostingDriver(HostingConfig.current(http(), "acme", "1"), ResourceTags.of("staging"))
                .userFor(ResourceTags.of("staging").tagFor("site-2"))).as("another installation, another user")
                .isNotEqualTo(user);
        String sent = server.requests.get(0).body();
        assertThat(sent).contains("\"domain_mode\":\"custom\"", "\"name\":\"site.com\"", "\"is_isolated\":true",
                "\"isolated_user\":\"" + user + "\"").doesNotContain("tags");
        assertThatThrownBy(() -> forgeCurrent().userFor("converge:site-2")).as("not this installation's tag")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void forgesCurrentApiNameTakenIsResourceExistsAndItsListFollowsTheCursor() {
        server.route("POST", "/orgs/acme/servers/1/sites", "forge/current-create-site-422-taken.json")
                .route("GET", "/orgs/acme/servers/1/sites?page%5Bsize%5D=100", "forge/current-list-sites-page1.json")
                .route("GET", "/orgs/acme/servers/1/sites?page%5Bsize%5D=100&page%5Bcursor%5D="
                        + "eyJzaXRlcy5pZCI6MiwiX3BvaW50c1RvTmV4dEl0ZW1zIjp0cnVlfQ", "forge/current-list-sites-page2.json");

        assertThatThrownBy(() -> forgeCurrent().create("site.com", ResourceTags.defaults().tagFor("site-2"), null))
                .isInstanceOf(ResourceExists.class);
        List<LeafResource> sites = forgeCurrent().list();
        assertThat(sites).extracting(LeafResource::naturalKey).containsExactly("site.com", "second.com");
        assertThat(sites).extracting(LeafResource::leafId).containsExactly("2", "3");
        assertThat(sites).extracting(LeafResource::tag).as("ours reads as our tag, a site under forge's user as itself")
                .containsExactly(ResourceTags.defaults().tagFor("site-2"), "forge");
        assertThat(forgeCurrent().find("second.com")).isPresent();
    }

    @Test
    void forgesCurrentApiDeploysThroughDeploymentsAndDeletesUnderTheOrganization() {
        server.route("POST", "/orgs/acme/servers/1/sites/2/deployments", "forge/current-create-deployment-200.json");

        forgeCurrent().deploy("2");
        forgeCurrent().delete("2"); // no route: the sample server's 404, which a delete takes as already gone

        assertThat(server.requests).extracting(SampleServer.Recorded::pathAndQuery)
                .containsExactly("/orgs/acme/servers/1/sites/2/deployments", "/orgs/acme/servers/1/sites/2");
    }

    // --- license ---

    @Test
    void licenseCreateReadsDataKeyAndSendsTheIdempotencyKey() {
        server.route("POST", "/sites", "license/create-license-201.json");

        LeafResource created = license().create("site7.sites.example", "converge:site-7", "cv-ledger-7");

        assertThat(created.leafId()).isEqualTo("C1B6DE-39A6E3-DE1A90-DE2B54-3E3DE8-V3");
        assertThat(server.requests.get(0).headers().get("Idempotency-Key")).containsExactly("cv-ledger-7");
        assertThat(server.requests.get(0).headers().get("Authorization")).containsExactly("Bearer " + TOKEN);
    }

    @Test
    void licenseListFollowsLinksNextToTheLastPage() {
        server.route("GET", "/sites", "license/list-licenses-page1.json")
                .route("GET", "/sites?page%5Bnumber%5D=2&page%5Bsize%5D=100", "license/list-licenses-page2.json");

        assertThat(license().list()).extracting(LeafResource::naturalKey)
                .containsExactly("site7.sites.example", "site8.sites.example");
    }

    @Test
    void licenseReadsStatamicSitesWhoseDomainsAreAnArrayTheFirstBeingTheProductionDomain() {
        server.route("GET", "/sites", "license/statamic-list-sites.json");

        List<LeafResource> sites = license().list();

        assertThat(sites).extracting(LeafResource::naturalKey).containsExactly("site7.sites.example", "bobbysworld.ca");
        assertThat(sites).extracting(LeafResource::leafId).containsExactly("pg4x2qrly2my8dl1", "1o0xe7rzdd9wq58j");
        assertThat(sites.get(0).tag()).isEqualTo("converge:site-7");
    }

    @Test
    void licenseFindsADomainInTheWholeListWithoutAFilterStatamicDoesNotOffer() {
        server.route("GET", "/sites", "license/statamic-list-sites.json");

        assertThat(license().find("site7.sites.example")).map(LeafResource::leafId).contains("pg4x2qrly2my8dl1");
        assertThat(license().find("staging.bobbysworld.ca")).as("a testing domain is not the site's natural key").isEmpty();
        assertThat(server.requests).extracting(SampleServer.Recorded::pathAndQuery).containsOnly("/sites");
    }

    @Test
    void licenseCreateReadsStatamicsReplyWithItsDomainsArray() {
        server.route("POST", "/sites", "license/statamic-create-site.json");

        LeafResource created = license().create("site7.sites.example", "converge:site-7", "cv-ledger-7");

        assertThat(created.leafId()).isEqualTo("pwkknrxl6y7z1n9v");
        assertThat(created.naturalKey()).isEqualTo("site7.sites.example");
    }

    @Test
    void licenseDeleteTakesStatamicsMessageReply() {
        server.route("DELETE", "/sites/pwkknrxl6y7z1n9v", "license/statamic-delete-site.json");

        license().delete("pwkknrxl6y7z1n9v");

        assertThat(server.requests).hasSize(1);
    }

    @Test
    void licenseTooManyRequestsIsThrottledForItsRetryAfter() {
        server.route("POST", "/sites", "license/too-many-requests-429.json");

        assertThatThrownBy(() -> license().create("site7.sites.example", "converge:site-7", "k"))
                .isInstanceOfSatisfying(LeafThrottled.class, t -> assertThat(t.delay()).isEqualTo(Duration.ofSeconds(17)));
    }
}
