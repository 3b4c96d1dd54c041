package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.fixture.MemoryLeaf;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A delivery that loses its lease while its create is out, and whose entry is settled by others before the
 * answer comes back, deletes what it made (nobody will adopt it). Losing the lease also interrupts the
 * handler's thread, as the heartbeat does when it learns of it; that interrupt must not cancel this very
 * cleanup, or the resource stays at the leaf with nothing recording it (seen in a chaos run: "ORPHAN: license
 * ... could not be deleted: ... interrupted while waiting for the answer").
 */
class StaleCreateCleanupTest {
    record Make(String key) {
    }

    static final JobType<Make> MAKE = JobType.of("stale-create.make", Make.class).withRetry(RetryPolicy.never());

    /**
     * The first create makes the resource, then (while its answer is on the way) the entry is settled by
     * another party and the lease loss interrupts the caller. A call made on an interrupted thread fails at
     * once, as an HTTP client's wait for its answer does.
     */
    static final class StaleLeaf implements ResourceType {
        final MemoryLeaf leaf = MemoryLeaf.uniqueByKey("stale.repo");
        final AtomicBoolean first = new AtomicBoolean(true);
        final AtomicInteger deleteCalls = new AtomicInteger();
        /** Whether the interrupt comes during the cleanup's own call rather than before it. */
        final boolean duringDelete;
        volatile Store store;

        StaleLeaf(boolean duringDelete) {
            this.duringDelete = duringDelete;
        }

        @Override
        public String kind() {
            return leaf.kind();
        }

        @Override
        public RepetitionSafety createSafety() {
            return leaf.createSafety();
        }

        @Override
        public boolean supportsLookup() {
            return true;
        }

        @Override
        public LeafResource create(CreateRequest request) {
            failIfInterrupted("create");
            LeafResource made = leaf.create(request);
            if (first.getAndSet(false)) {
                settleElsewhere(request.naturalKey());
                if (!duringDelete) {
                    Thread.currentThread().interrupt(); // the heartbeat learned the lease is lost
                }
            }
            return made;
        }

        private void settleElsewhere(String naturalKey) {
            store.withConnection(c -> {
                try (PreparedStatement ps = c.prepareStatement(
                        "UPDATE cv_ledger SET state = 'released' WHERE kind = ? AND natural_key = ?")) {
                    ps.setString(1, kind());
                    ps.setString(2, naturalKey);
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
                return null;
            });
        }

        @Override
        public Optional<LeafResource> find(String naturalKey) {
            failIfInterrupted("lookup");
            return leaf.find(naturalKey);
        }

        @Override
        public void delete(LeafResource resource) {
            if (deleteCalls.incrementAndGet() == 1 && duringDelete) {
                Thread.currentThread().interrupt(); // the heartbeat learned it while the call waited for its answer
            }
            failIfInterrupted("delete");
            leaf.delete(resource);
        }

        @Override
        public List<LeafResource> list() {
            return leaf.list();
        }

        private void failIfInterrupted(String call) {
            if (Thread.currentThread().isInterrupted()) {
                throw new AmbiguousOutcome(kind(), call + ": interrupted while waiting for the answer");
            }
        }
    }

    @Test
    void whatAStaleDeliveryMadeAfterItsEntryWasSettledIsDeletedThoughItsThreadWasInterrupted() {
        cleanedUp(new StaleLeaf(false));
    }

    @Test
    void theCleanupIsMadeAgainWhenTheInterruptCutsItsCallShort() {
        cleanedUp(new StaleLeaf(true));
    }

    private static void cleanedUp(StaleLeaf leaf) {
        try (Harness h = new Harness("postgres")) {
            leaf.store = h.store();
            Converge engine = h.engine(b -> b.queue("default", 1).resource(leaf)
                    .handle(MAKE, (p, ctx) -> ctx.ledger().ensure(leaf, p.key(), "s-" + p.key(), Map.of())));
            engine.enqueue(Job.of(MAKE, new Make("r1")));
            await().atMost(Duration.ofSeconds(20)).until(() -> leaf.deleteCalls.get() > 0);
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(leaf.leaf.holdings())
                    .as("the leaf's resources after the stale delivery's cleanup").isEmpty());
            assertThat(leaf.leaf.totalCreates()).isEqualTo(1);
        }
    }
}
