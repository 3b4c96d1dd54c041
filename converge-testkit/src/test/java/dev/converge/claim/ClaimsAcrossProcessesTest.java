package dev.converge.claim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.store.Store;
import dev.converge.testkit.ChildJvm;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Two processes, four threads each, race for the same claim keys at once: exactly one winner per key. */
class ClaimsAcrossProcessesTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int KEYS = 300;

    @Test
    void processesRacingForTheSameKeysGetExactlyOneWinnerEach() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_claims");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 2);
                ChildJvm a = ChildJvm.start("racer-a", "claim", db.url(), db.user(), "racer-a", String.valueOf(KEYS), "4");
                ChildJvm b = ChildJvm.start("racer-b", "claim", db.url(), db.user(), "racer-b", String.valueOf(KEYS), "4")) {
            a.awaitLine("READY", WAIT);
            b.awaitLine("READY", WAIT);
            String go = "GO " + (System.currentTimeMillis() + 500);
            a.send(go);
            b.send(go);
            a.awaitLine("FINISHED", WAIT);
            b.awaitLine("FINISHED", WAIT);

            Map<String, List<String>> winners = new HashMap<>();
            for (ChildJvm racer : List.of(a, b)) {
                for (String line : racer.linesStartingWith("WON ")) {
                    String[] parts = line.split(" ");
                    winners.computeIfAbsent(parts[1], k -> new ArrayList<>()).add(parts[2]);
                }
            }
            assertThat(winners).hasSize(KEYS);
            winners.forEach((key, who) -> assertThat(who).as(key).hasSize(1));
            assertThat(a.linesStartingWith("WON ")).as("both processes won some").isNotEmpty();
            assertThat(b.linesStartingWith("WON ")).as("both processes won some").isNotEmpty();

            Claims claims = dev.converge.Converge.builder(store).nodeId("checker").build().claims();
            winners.forEach((key, who) -> assertThat(claims.holder(key).orElseThrow().owner()).isEqualTo(who.get(0)));
            assertThat(a.quit(WAIT)).isZero();
            assertThat(b.quit(WAIT)).isZero();
        }
    }
}
