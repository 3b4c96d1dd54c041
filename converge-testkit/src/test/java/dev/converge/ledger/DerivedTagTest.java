package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.queue.JobState;
import dev.converge.testkit.leaf.CountingLeaf;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A leaf that keeps no free text for our tag keeps something derived from it (as Forge keeps a
 * site's isolated user), and its type says so through {@link ResourceType#carries}: a resource
 * carrying the derived mark of our tag is adopted, one with another mark is a conflict. Without the
 * override (plain equality) the same resource of ours would be refused: the hook is what makes it work.
 */
class DerivedTagTest {
    final CountingLeaf leaf = CountingLeaf.uniqueByKey("test.marked");
    final AtomicBoolean derive = new AtomicBoolean(true);

    static String mark(String tag) {
        return "mark-" + Integer.toHexString(tag.hashCode());
    }

    /** Creates with the mark where the tag would go; recognises by the mark (or, switched off, by equality). */
    final class Marked implements ResourceType {
        @Override
        public String kind() {
            return leaf.kind();
        }

        @Override
        public RepetitionSafety createSafety() {
            return leaf.createSafety();
        }

        @Override
        public LeafResource create(CreateRequest r) {
            return leaf.create(new CreateRequest(r.naturalKey(), mark(r.tag()), r.idempotencyKey(), r.params()));
        }

        @Override
        public boolean supportsLookup() {
            return true;
        }

        @Override
        public Optional<LeafResource> find(String naturalKey) {
            return leaf.find(naturalKey);
        }

        @Override
        public void delete(LeafResource resource) {
            leaf.delete(resource);
        }

        @Override
        public List<LeafResource> list() {
            return leaf.list();
        }

        @Override
        public boolean carries(LeafResource found, String tag) {
            return derive.get() ? mark(tag).equals(found.tag()) : ResourceType.super.carries(found, tag);
        }
    }

    Converge engine(Harness h, Marked type) {
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 2).resource(type).handle(LedgerTest.MAKE,
                (p, ctx) -> self[0].ledger().ensure(ctx, type, p.key(), p.subject(), Map.of())));
        return self[0];
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aResourceCarryingTheMarkOfOurTagIsAdoptedAndOneWithAnotherMarkIsNot(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, new Marked());
            LeafResource ours = leaf.plant("ours", mark(Ledger.defaultTagFor("s1")));
            leaf.plant("theirs", mark(Ledger.defaultTagFor("someone-else")));

            assertThat(LedgerTest.runToEnd(engine, new LedgerTest.Make(leaf.kind(), "ours", "s1")).state())
                    .isEqualTo(JobState.SUCCEEDED);
            assertThat(engine.ledger().entry(leaf.kind(), "ours").orElseThrow().leafId()).isEqualTo(ours.leafId());
            assertThat(LedgerTest.runToEnd(engine, new LedgerTest.Make(leaf.kind(), "theirs", "s2")).state())
                    .as("another tag's mark is not ours").isEqualTo(JobState.FAILED);
            assertThat(leaf.totalCreates()).as("nothing created twice").isZero();

            // a create of ours carries the mark, and the teardown recognises it as ours
            assertThat(LedgerTest.runToEnd(engine, new LedgerTest.Make(leaf.kind(), "fresh", "s3")).state())
                    .isEqualTo(JobState.SUCCEEDED);
            assertThat(leaf.find("fresh").orElseThrow().tag()).isEqualTo(mark(Ledger.defaultTagFor("s3")));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void withPlainEqualityTheSameResourceOfOursIsRefused(String kind) {
        derive.set(false);
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, new Marked());
            leaf.plant("ours", mark(Ledger.defaultTagFor("s1")));
            assertThat(LedgerTest.runToEnd(engine, new LedgerTest.Make(leaf.kind(), "ours", "s1")).state())
                    .isEqualTo(JobState.FAILED);
        }
    }
}
