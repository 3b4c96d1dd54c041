package dev.converge.claim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.fixture.RoundTrips;
import dev.converge.flow.Harness;
import dev.converge.store.Store;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every node that does not hold a leadership (the watchdog, the reaper, the recurring round...) asks for it
 * every round, and nearly always finds it held. On PostgreSQL that ask is one statement, which writes
 * nothing when the key is held; so is the first claim of a key and the takeover of a released one.
 */
class ClaimStatementsTest {
    @ParameterizedTest(name = "{0}: {1} statement(s) an ask")
    @CsvSource({"postgres, 1", "h2, 2"})
    void askingForAKeyIsOneStatementOnPostgres(String kind, int statements) {
        try (Harness h = new Harness(kind)) {
            Converge holder = h.engine(b -> b.nodeId("holder"));
            Store counted = Store.of(RoundTrips.counting(h.store().dataSource()), h.store().clock());
            Converge waiting = h.engine(counted, b -> b.nodeId("waiting"));
            Duration ttl = Duration.ofMinutes(1);

            RoundTrips.Recorded<Optional<Claim>> first = RoundTrips.during(() -> waiting.claims().add("stmts:first", ttl));
            assertThat(first.value()).as("a key nobody ever held").hasValueSatisfying(c -> assertThat(c.fence()).isEqualTo(1));
            assertThat(first.sent()).as("its statements: %s", first.sent()).hasSizeLessThanOrEqualTo(statements);

            Claim held = holder.claims().add("stmts:held", ttl).orElseThrow();
            RoundTrips.Recorded<Optional<Claim>> refused = RoundTrips.during(() -> waiting.claims().add("stmts:held", ttl));
            assertThat(refused.value()).as("held by another").isEmpty();
            assertThat(refused.sent()).as("its statements: %s", refused.sent()).hasSize(statements);
            assertThat(holder.claims().holder("stmts:held")).hasValueSatisfying(c -> {
                assertThat(c.owner()).isEqualTo(held.owner());
                assertThat(c.expiresAt()).as("untouched by the ask").isEqualTo(held.expiresAt());
            });

            assertThat(holder.claims().release(held)).isTrue();
            RoundTrips.Recorded<Optional<Claim>> taken = RoundTrips.during(() -> waiting.claims().add("stmts:held", ttl));
            assertThat(taken.value()).as("released, then taken over with the next fence")
                    .hasValueSatisfying(c -> assertThat(c.fence()).isEqualTo(held.fence() + 1));
            assertThat(taken.sent()).as("its statements: %s", taken.sent()).hasSize(1);
            assertThat(holder.claims().extend(held, ttl)).as("the old holder's fence is stale").isFalse();
        }
    }
}
