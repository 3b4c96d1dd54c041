package dev.converge.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The session cookie: signed with the secret, bounded by the operator's expiry, refused once tampered with or ended. */
class SessionsTest {

    @Test
    void aSecretSharedByTwoProcessesHonoursTheOtherOnesCookieARandomOneDoesNot() {
        Sessions drawn = new Sessions(null);
        Sessions.Issued issued = drawn.issue("7", null, Instant.now());
        assertThat(new Sessions(null).verify(issued.cookie(), Instant.now())).as("another process's random secret").isEmpty();
        assertThat(drawn.verify(issued.cookie(), Instant.now())).isPresent();

        byte[] secret = "s".repeat(32).getBytes(StandardCharsets.UTF_8);
        Sessions a = new Sessions(secret);
        Sessions b = new Sessions(secret);
        Sessions.Issued shared = a.issue("7", Instant.now().plusSeconds(60), Instant.now());
        assertThat(b.verify(shared.cookie(), Instant.now())).as("the same secret on another process")
                .hasValueSatisfying(s -> assertThat(s.csrf()).isEqualTo(shared.session().csrf()));
        assertThat(shared.session().expiresAt()).as("never past the operator's own expiry")
                .isBefore(Instant.now().plusSeconds(61));
        assertThat(b.verify(shared.cookie(), Instant.now().plusSeconds(120))).as("expired").isEmpty();
        assertThat(b.verify(shared.cookie().replace("v2.7.", "v2.8."), Instant.now())).as("another operator").isEmpty();
        assertThat(shared.toString()).doesNotContain(shared.cookie());
    }

    @Test
    void anEndedSessionIsRefusedAndItsCsrfTokenIsItsOwn() {
        Sessions s = new Sessions(null);
        Sessions.Issued one = s.issue("ops", null, Instant.now());
        Sessions.Issued two = s.issue("ops", null, Instant.now());
        assertThat(Sessions.csrfMatches(one.session(), one.session().csrf())).isTrue();
        assertThat(Sessions.csrfMatches(one.session(), two.session().csrf())).as("another session's").isFalse();
        assertThat(Sessions.csrfMatches(one.session(), null)).isFalse();
        s.end(one.session(), Instant.now());
        assertThat(s.verify(one.cookie(), Instant.now())).isEmpty();
        assertThat(s.verify(two.cookie(), Instant.now())).isPresent();
    }

    @Test
    void aShortSecretAnOddOperatorIdAPageNamedLikeAViewAndAnOddMountPathAreRefused() {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            Converge engine = Converge.builder(store).build();
            Dashboard.Builder b = Dashboard.builder(engine);
            assertThatThrownBy(() -> b.sessionSecret("short")).hasMessageContaining("at least 32");
            assertThatThrownBy(() -> new Dashboard.Operator("has a space", null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new Dashboard.Page("jobs", "Jobs", ctx -> { }, "test-app/hello.js"))
                    .hasMessageContaining("not one of");
            assertThatThrownBy(() -> new Dashboard.Page("mine", "Mine", ctx -> { }, "no/such/script.js"))
                    .hasMessageContaining("not on the classpath");
            assertThatThrownBy(b::build).as("who is an operator is required").isInstanceOf(NullPointerException.class);
            Dashboard d = b.operators(token -> java.util.Optional.empty()).build();
            assertThatThrownBy(() -> io.javalin.Javalin.create(cfg -> d.mount(cfg, "ui/"))).hasMessageContaining("/ui");
        }
    }
}
