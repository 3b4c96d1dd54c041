package dev.converge.proof.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.proof.embedded.EmbeddedLeaves;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.api.ApiServer;
import dev.converge.provisioning.assistant.ModelSettings;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code converge abuse} against a started server: with the default limits the legitimate client
 * is served through every attack and made-up tokens stop reaching the database; with the limits
 * taken off (one address may hold every connection, no request deadline, no failed-authentication
 * limit) the same run shows the legitimate client starved and a lookup per made-up token, so its
 * figures can fail.
 */
class AbuseTest {

    @Test
    void withTheDefaultLimitsTheLegitimateClientIsServedThroughEveryAttack(@TempDir Path dir) throws Exception {
        List<Abuse.Phase> phases = run(dir, ApiOptions.defaults().withJetty(200, 2000, Duration.ofSeconds(30)), 0,
                Duration.ofSeconds(4), Set.of("none", "slow", "tokens", "methods", "sites", "noisy"));
        for (Abuse.Phase p : phases.stream().filter(p -> !p.attack().equals("noisy sites")).toList()) {
            assertThat(p.legitSuccess()).as("%s: legitimate requests served", p.attack()).isGreaterThanOrEqualTo(0.99);
            assertThat(p.legitP99Micros()).as("%s: legitimate p99", p.attack()).isLessThan(1_000_000);
        }
        Abuse.Phase tokens = phase(phases, "random tokens");
        assertThat(tokens.lookupsPerAttackingRequest()).as("lookups per made-up token").isLessThan(0.2);
        assertThat(tokens.answers()).contains("429");
        Abuse.Phase methods = phase(phases, "random methods");
        assertThat(methods.seriesAfter() - methods.seriesBefore()).as("series added by 100 made-up methods")
                .isLessThanOrEqualTo(4);
        Abuse.Phase sites = phase(phases, "noisy sites");
        assertThat(sites.legitSuccess()).as("legitimate sites live within 30 s beside a flood of another tenant's")
                .isGreaterThanOrEqualTo(0.99);
        assertThat(sites.legitP99Micros()).as("legitimate sites: p99 from request to live").isLessThan(SITE_P99_MICROS);
    }

    /**
     * What a legitimate site may take to go live beside another tenant's flood, with fair admission:
     * the bound between the two regimes this test compares. On this project's 2-core build machine
     * (H2 file store, the attacker and the service on the same cores), with the limits on, the slowest
     * of the ~8 legitimate sites of the 4-second phase took 4.1-6.0 s in three runs (4.6 s on the code
     * before the engine's assembly changed, so not a regression of it); with the limits off, 9.4-12.8 s.
     * At 5 s the check failed one of those runs by noise alone; 7 s still fails the limits-off run.
     */
    private static final long SITE_P99_MICROS = 7_000_000;

    /**
     * How long each attack of the limits-off run lasts: twice the limits-on run's. With fair
     * admission a legitimate site's wait does not grow with the flood; without it, it grows with
     * every flood site admitted before it. A 4-second flood made 6.6-12.8 s of wait, too close to
     * the bound under a loaded build; an 8-second one puts the harm well past it.
     */
    private static final Duration HARM_PHASE = Duration.ofSeconds(8);

    @Test
    void withTheLimitsOffTheSameRunShowsTheHarm(@TempDir Path dir) throws Exception {
        List<Abuse.Phase> phases = run(dir, ApiOptions.defaults().withJetty(200, 2000, Duration.ofSeconds(30))
                .withConnectionBounds(100, Duration.ofMinutes(10)).withAuthFailuresPerMinute(1_000_000), 100_000,
                HARM_PHASE, Set.of("slow", "tokens", "sites"));
        assertThat(phase(phases, "slow clients").legitSuccess()).as("starved by slow clients").isLessThan(0.5);
        assertThat(phase(phases, "random tokens").lookupsPerAttackingRequest()).as("a lookup per made-up token")
                .isGreaterThan(0.7);
        assertThat(phase(phases, "noisy sites").legitP99Micros()).as("legitimate sites wait behind the flood")
                .isGreaterThan(SITE_P99_MICROS);
    }

    private static Abuse.Phase phase(List<Abuse.Phase> phases, String name) {
        return phases.stream().filter(p -> p.attack().equals(name)).findFirst().orElseThrow();
    }

    /**
     * A server with these options (200 connections: the attack scaled to a test), attacked for
     * {@code phase} per attack; {@code inFlight} provisionings at once (0: the default).
     */
    private static List<Abuse.Phase> run(Path dir, ApiOptions options, int inFlight, Duration phase, Set<String> only)
            throws Exception {
        try (EmbeddedLeaves leaves = EmbeddedLeaves.start(7);
                Store store = Store.open(StoreConfig.h2File(dir.resolve("store").toString()).build());
                Provisioning service = Provisioning.start(store, leaves.config(Duration.ofDays(14), Duration.ofMinutes(2),
                        null, Duration.ofSeconds(2)).withProvisioningsInFlight(inFlight), NodeOptions.defaults(),
                        ModelSettings.none());
                ApiServer api = ApiServer.start(service, options, List.of())) {
            String legit = service.tenants().create("legit").token();
            String noisy = service.tenants().create("noisy").token();
            String operator = service.tenants().credentials().issueOperator(null, "abuse test").token();
            Abuse.Options o = new Abuse.Options(URI.create("http://127.0.0.1:" + api.port()), legit, noisy, operator,
                    "127.0.0.2", 260, 300, 100, phase, 20, only);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<Abuse.Phase> phases = new Abuse(o).run(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.out.print(out.toString(StandardCharsets.UTF_8));
            return phases;
        }
    }
}
