package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.crash.CrashPoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a run decides where workers halt, and which settings it refuses before starting anything. */
class CrashTicketsTest {

    @Test
    void everyCrashPointGetsItsTicketsAndAnUnusedTicketGoesToTheNextWorker() {
        CrashTickets tickets = new CrashTickets(2);
        List<CrashPoint> taken = new ArrayList<>();
        for (CrashPoint p = tickets.take(); p != null; p = tickets.take()) {
            taken.add(p);
        }
        assertThat(taken).hasSize(2 * CrashPoint.values().length).containsOnly(CrashPoint.values());

        tickets.giveBack(CrashPoint.AFTER_TOKEN_USE); // its worker was killed before it reached the point
        assertThat(tickets.take()).isEqualTo(CrashPoint.AFTER_TOKEN_USE);
        assertThat(tickets.take()).isNull();
    }

    @Test
    void aTicketsSpecHaltsAtItsPointOnly() {
        HaltingCrashPlan plan = HaltingCrashPlan.parse(CrashTickets.spec(CrashPoint.INSIDE_TEARDOWN), 1);
        assertThat(plan.rate(CrashPoint.INSIDE_TEARDOWN)).isPositive();
        assertThat(plan.rate(CrashPoint.AFTER_CLAIM)).isZero();

        HaltingCrashPlan all = HaltingCrashPlan.parse("ledger.after-claim=0.5,*=0.01", 1);
        assertThat(all.rate(CrashPoint.AFTER_CLAIM)).isEqualTo(0.5);
        assertThat(all.rate(CrashPoint.BEFORE_COMPLETE)).isEqualTo(0.01);
        assertThatThrownBy(() -> HaltingCrashPlan.parse("no.such-point=0.1", 1)).hasMessageContaining("no crash point");
        assertThatThrownBy(() -> HaltingCrashPlan.parse("1.5", 1)).hasMessageContaining("0..1");
    }

    @Test
    void settingsAreCheckedBeforeAnyProcessStarts() {
        assertThatThrownBy(() -> ChaosSettings.newBuilder().workers(0).build()).hasMessageContaining("--workers");
        assertThatThrownBy(() -> ChaosSettings.newBuilder().faultRate(0.9).build()).hasMessageContaining("--fault-rate");
        assertThatThrownBy(() -> ChaosSettings.newBuilder().hang(Duration.ofMillis(500)).build())
                .hasMessageContaining("--hang");
        assertThatThrownBy(() -> ChaosSettings.newBuilder().db("jdbc:h2:mem:x", "root").build())
                .hasMessageContaining("jdbc:postgresql");
        assertThat(ChaosSettings.newBuilder().build().sites()).isEqualTo(300);
        if (Runtime.version().feature() < 21) {
            assertThatThrownBy(() -> ChaosSettings.newBuilder().virtualThreads(true).build())
                    .hasMessageContaining("--virtual-threads needs JDK 21 or later");
        } else {
            assertThat(ChaosSettings.newBuilder().virtualThreads(true).build().virtualThreads()).isTrue();
        }
    }
}
