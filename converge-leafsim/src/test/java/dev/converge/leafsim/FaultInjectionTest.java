package dev.converge.leafsim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every fault type over real HTTP: the caller's view, the hit counter, and whether the create happened. */
class FaultInjectionTest {
    static LeafSim sim;
    static SimClient licenses;

    @BeforeAll
    static void start() {
        sim = LeafSim.start(LeafSimConfig.builder().token(LeafSim.LICENSE, "lic").build());
        licenses = new SimClient(sim.leafUrl(LeafSim.LICENSE), "lic");
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @AfterEach
    void clearFaults() {
        sim.faults().clear();
    }

    @Test
    void errorBeforeAnswers500AndCreatesNothing() throws Exception {
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.ERROR_BEFORE).times(1));

        assertThat(create("before.example.com").statusCode()).isEqualTo(500);
        assertHit(FaultType.ERROR_BEFORE);
        assertThat(creates("before.example.com")).isZero();
        assertThat(create("before.example.com").statusCode()).as("spent after one call").isEqualTo(201);
    }

    @Test
    void errorAfterAnswers500ButTheLicenseExists() throws Exception {
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.ERROR_AFTER).times(1));

        assertThat(create("after.example.com").statusCode()).isEqualTo(500);
        assertHit(FaultType.ERROR_AFTER);
        assertThat(creates("after.example.com")).isEqualTo(1);
    }

    @Test
    void throttleAnswers429WithRetryAfterAndCreatesNothing() throws Exception {
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.THROTTLE).withRetryAfterSeconds(7).times(1));

        HttpResponse<String> answer = create("throttled.example.com");
        assertThat(answer.statusCode()).isEqualTo(429);
        assertThat(answer.headers().firstValue("Retry-After")).hasValue("7");
        assertHit(FaultType.THROTTLE);
        assertThat(creates("throttled.example.com")).isZero();
    }

    @Test
    void malformedAfterAnswers2xxWithABodyThatIsNotTheLicense() throws Exception {
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.MALFORMED_AFTER).times(2));

        HttpResponse<String> truncated = create("malformed.example.com");
        HttpResponse<String> fieldless = create("malformed.example.com");

        assertThat(truncated.statusCode()).isEqualTo(201);
        assertThatThrownBy(() -> SimClient.JSON.readTree(truncated.body())).isInstanceOf(JsonProcessingException.class);
        assertThat(fieldless.statusCode()).isEqualTo(201);
        assertThat(SimClient.json(fieldless).has("data")).isFalse();
        assertThat(sim.faults().hits(LeafSim.LICENSE, "create", FaultType.MALFORMED_AFTER)).isEqualTo(2);
        assertThat(creates("malformed.example.com")).isEqualTo(2);
    }

    @Test
    void hangAfterOutlastsTheClientTimeoutButTheLicenseExists() {
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.HANG_AFTER).withHangMs(3_000).times(1));
        SimClient impatient = licenses.withTimeout(Duration.ofMillis(300));

        assertThatThrownBy(() -> impatient.post("/sites", body("hang.example.com")))
                .isInstanceOf(HttpTimeoutException.class);
        assertHit(FaultType.HANG_AFTER);
        assertThat(creates("hang.example.com")).isEqualTo(1);
    }

    @Test
    void resetAfterDropsTheConnectionButTheLicenseExists() {
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.RESET_AFTER).times(1));

        assertThatThrownBy(() -> create("reset.example.com"))
                .isInstanceOf(IOException.class).isNotInstanceOf(HttpTimeoutException.class);
        assertHit(FaultType.RESET_AFTER);
        assertThat(creates("reset.example.com")).isEqualTo(1);
    }

    @Test
    void latencyDelaysTheAnswerAndCombinesWithAnotherFault() throws Exception {
        sim.faults().add(FaultRule.latency(LeafSim.LICENSE, "create", 300).times(1),
                FaultRule.of(LeafSim.LICENSE, "create", FaultType.ERROR_AFTER).times(1));

        long started = System.nanoTime();
        HttpResponse<String> answer = create("slow.example.com");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(answer.statusCode()).isEqualTo(500);
        assertHit(FaultType.LATENCY);
        assertThat(creates("slow.example.com")).isEqualTo(1);
    }

    @Test
    void aFaultOnOneRouteLeavesTheOthersAlone() throws Exception {
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.ERROR_BEFORE));

        assertThat(licenses.get("/sites?domain=any.example.com").statusCode()).isEqualTo(200);
        assertThat(sim.faults().hits(LeafSim.LICENSE, "list", FaultType.ERROR_BEFORE)).isZero();
        sim.faults().clear();
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "*", FaultType.ERROR_BEFORE).times(1));
        assertThat(licenses.get("/sites").statusCode()).as("'*' matches every route").isEqualTo(500);
        assertThat(sim.faults().hits(LeafSim.LICENSE, "list", FaultType.ERROR_BEFORE)).isEqualTo(1);
    }

    @Test
    void anUnauthenticatedCallMeetsNoFault() throws Exception {
        sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.ERROR_AFTER).times(1));
        assertThat(new SimClient(sim.leafUrl(LeafSim.LICENSE), null).post("/sites", body("anon.example.com"))
                .statusCode()).isEqualTo(401);
        assertThat(sim.faults().rules()).hasSize(1);
    }

    private static HttpResponse<String> create(String domain) throws Exception {
        return licenses.post("/sites", body(domain));
    }

    private static Map<String, String> body(String domain) {
        return Map.of("name", "tag-" + domain, "domain", domain);
    }

    private static long creates(String domain) {
        return sim.inventory(LeafSim.LICENSE).createsOf(domain);
    }

    private static void assertHit(FaultType type) {
        assertThat(sim.faults().hits(LeafSim.LICENSE, "create", type)).as("hits of " + type).isPositive();
    }
}
