package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.queue.NodeInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InFlightCapTest {
    private static NodeInfo node(String id, boolean live, Map<String, Integer> queues) {
        return new NodeInfo(id, "1", queues, Set.of(), Instant.EPOCH, Instant.EPOCH, live);
    }

    @Test
    void followsTheLiveHandlersOfTheStepsQueueBelowTheConfiguredCap() {
        List<NodeInfo> fleet = List.of(node("w1", true, Map.of("default", 4)), node("w2", true, Map.of("default", 4, "mail", 9)),
                node("dead", false, Map.of("default", 50)), node("api", true, Map.of()), node("other", true, Map.of("mail", 30)));
        assertThat(new InFlightCap(0, "default", () -> fleet).get()).isEqualTo(InFlightCap.forHandlers(8)).isEqualTo(10);
    }

    @Test
    void aCapGivenStandsAsGivenWithoutReadingTheFleet() {
        AtomicInteger reads = new AtomicInteger();
        InFlightCap six = new InFlightCap(6, "default", () -> {
            reads.incrementAndGet();
            return List.of(node("w", true, Map.of("default", 100)));
        });
        assertThat(six.get()).isEqualTo(6);
        assertThat(new InFlightCap(100_000, "default", List::of).get()).as("limits taken off").isEqualTo(100_000);
        assertThat(reads).hasValue(0);
    }

    @Test
    void withoutALiveWorkerOnTheQueueTheMostApplies() {
        assertThat(new InFlightCap(0, "default", List::of).get()).isEqualTo(100);
        assertThat(new InFlightCap(0, "default", () -> List.of(node("api", true, Map.of()),
                node("gone", false, Map.of("default", 16)))).get()).isEqualTo(100);
    }

    @Test
    void readsTheFleetAtMostEveryFewSecondsAndKeepsTheLastAnswerWhenItCannot() {
        AtomicInteger reads = new AtomicInteger();
        List<List<NodeInfo>> answers = new ArrayList<>(List.of(List.of(node("w", true, Map.of("default", 16)))));
        InFlightCap cap = new InFlightCap(0, "default", () -> {
            reads.incrementAndGet();
            if (answers.isEmpty()) {
                throw new IllegalStateException("store away");
            }
            return answers.remove(0);
        });
        assertThat(cap.get()).isEqualTo(20);
        assertThat(cap.get()).isEqualTo(20);
        assertThat(reads).as("the second call within the refresh interval reads nothing").hasValue(1);

        AtomicInteger calls = new AtomicInteger();
        InFlightCap everyTime = new InFlightCap(0, "default", () -> {
            if (calls.incrementAndGet() > 1) {
                throw new IllegalStateException("store away");
            }
            return List.of(node("w", true, Map.of("default", 8)));
        }, 0);
        assertThat(everyTime.get()).isEqualTo(10);
        assertThat(everyTime.get()).as("the fleet cannot be read: the last answer stands").isEqualTo(10);
        assertThat(calls).hasValue(2);
        assertThatThrownBy(() -> new InFlightCap(-1, "default", List::of)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHandlerCountFarBeyondTheMostIsTheMost() {
        assertThat(new InFlightCap(0, "default", () -> List.of(node("v", true, Map.of("default", Integer.MAX_VALUE))))
                .get()).isEqualTo(100);
    }
}
