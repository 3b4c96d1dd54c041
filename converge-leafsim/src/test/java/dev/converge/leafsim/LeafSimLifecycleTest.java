package dev.converge.leafsim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LeafSimLifecycleTest {
    @Test
    void closingReleasesAHeldAnswerInsteadOfWaitingItOut() throws Exception {
        LeafSim sim = LeafSim.start(LeafSimConfig.builder().tokenForAll("t").defaultHang(Duration.ofSeconds(30)).build());
        sim.faults().add(FaultRule.of(LeafSim.HOSTING, "create", FaultType.HANG_AFTER));
        SimClient forge = new SimClient(sim.leafUrl(LeafSim.HOSTING), "t").withTimeout(Duration.ofSeconds(60));
        CompletableFuture<Object> call = CompletableFuture.supplyAsync(() -> {
            try {
                return forge.post("/servers/1/sites", Map.of("domain", "held.example.com"));
            } catch (Exception e) {
                return e;
            }
        });
        await().atMost(Duration.ofSeconds(20))
                .until(() -> sim.faults().hits(LeafSim.HOSTING, "create", FaultType.HANG_AFTER) == 1);

        long started = System.nanoTime();
        sim.close();
        call.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertThat(sim.inventory(LeafSim.HOSTING).createsOf("held.example.com")).isEqualTo(1);
    }

    @Test
    void anIdempotencyKeyIsForgottenAfterItsRetention() throws Exception {
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        try (LeafSim sim = LeafSim.start(LeafSimConfig.builder().tokenForAll("t").clock(clock)
                .idempotencyRetention(Duration.ofHours(1)).build())) {
            SimClient licenses = new SimClient(sim.leafUrl(LeafSim.LICENSE), "t");
            Map<String, String> body = Map.of("name", "n", "domain", "retained.example.com");
            Map<String, String> key = Map.of("Idempotency-Key", "k-1");

            licenses.post("/sites", body, key);
            now.set(now.get().plus(Duration.ofMinutes(59)));
            licenses.post("/sites", body, key);
            assertThat(sim.inventory(LeafSim.LICENSE).createsOf("retained.example.com")).isEqualTo(1);

            now.set(now.get().plus(Duration.ofMinutes(2)));
            HttpResponse<String> afterRetention = licenses.post("/sites", body, key);
            assertThat(afterRetention.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(sim.inventory(LeafSim.LICENSE).createsOf("retained.example.com")).isEqualTo(2);
            assertThat(sim.inventory(LeafSim.LICENSE).history().get(0).at())
                    .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
        }
    }

    @Test
    void parsesStandaloneArgumentsAndNeverPrintsTokens() {
        LeafSimConfig config = LeafSimConfig.fromArgs("--port", "0", "--seed", "9", "--token", "all-secret",
                "--token", "license=lic-secret", "--control-token", "ctl-secret");

        assertThat(config.port()).isZero();
        assertThat(config.seed()).isEqualTo(9);
        assertThat(config.token(LeafSim.GITHOST)).isEqualTo("all-secret");
        assertThat(config.token(LeafSim.LICENSE)).isEqualTo("lic-secret");
        assertThat(config.controlToken()).isEqualTo("ctl-secret");
        assertThat(config.toString()).doesNotContain("secret");
        assertThat(LeafSimConfig.fromArgs().port()).isEqualTo(8089);
        assertThatThrownBy(() -> LeafSimConfig.fromArgs("--port")).hasMessageContaining("missing value");
        assertThatThrownBy(() -> LeafSimConfig.fromArgs("--bogus", "1")).hasMessageContaining("unknown option");
        assertThatThrownBy(() -> LeafSimConfig.builder().token("nosuchleaf", "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
