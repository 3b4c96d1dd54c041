package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.LeafSimConfig;
import dev.converge.leafsim.inventory.InventorySnapshot;
import dev.converge.proof.check.RemoteTruth;
import dev.converge.provisioning.mail.HttpMailLookup;
import dev.converge.provisioning.mail.MailSim;
import dev.converge.provisioning.mail.SmtpConfig;
import dev.converge.provisioning.mail.SmtpMailer;
import dev.converge.provisioning.mail.WelcomeEmail;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The chaos run's ground truth comes over HTTP from other processes: the mail server's listing
 * (also what a worker asks after a crash between a send and its token spend) and the leaves'
 * control API. Both are read here from real servers.
 */
class GroundTruthOverHttpTest {

    @Test
    void theMailListingTellsWhichSendTokensArrivedAndCountsMailsPerSite() throws Exception {
        try (MailSim mail = MailSim.start("127.0.0.1", 0, 0)) {
            SmtpMailer mailer = new SmtpMailer(SmtpConfig.of("127.0.0.1", mail.smtpPort(), "welcome@sites.example"));
            mailer.send(new WelcomeEmail("lead@example.com", "41", "shop", "https://shop.sites.example", "tok-1"));
            mailer.send(new WelcomeEmail("lead@example.com", "41", "shop", "https://shop.sites.example", "tok-2"));
            String listing = "http://127.0.0.1:" + mail.httpPort();

            HttpMailLookup lookup = new HttpMailLookup(listing);
            assertThat(lookup.accepted("tok-1")).isTrue();
            assertThat(lookup.accepted("never-sent")).isFalse();
            assertThat(new RemoteTruth("http://127.0.0.1:1", listing, null).welcomeEmailsBySite()).containsEntry("41", 2L);
        }
    }

    @Test
    void theLeavesInventoryKeepsEveryCreateEvenAfterTheDelete() throws Exception {
        try (LeafSim sim = LeafSim.start(LeafSimConfig.builder().token("githost", "gh-token").build())) {
            String repo = sim.leafUrl(LeafSim.GITHOST) + "/orgs/acme/repos";
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> made = http.send(HttpRequest.newBuilder(URI.create(repo))
                    .header("Authorization", "Bearer gh-token").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"shop\", \"description\": \"site-1\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(made.statusCode()).isEqualTo(201);
            http.send(HttpRequest.newBuilder(URI.create(sim.leafUrl(LeafSim.GITHOST) + "/repos/acme/shop"))
                    .header("Authorization", "Bearer gh-token").DELETE().build(), HttpResponse.BodyHandlers.discarding());

            InventorySnapshot truth = new RemoteTruth(sim.baseUrl(), "http://127.0.0.1:1", null).inventory(LeafSim.GITHOST);
            assertThat(truth.currentOf("shop")).isEmpty();
            assertThat(truth.createsOf("shop")).isEqualTo(1);
        }
    }
}
