package dev.converge.provisioning.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.ledger.LeafResource;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** reconcile --delete removes only orphans carrying the exact tag of one of this store's sites. */
class ReconcileDeleteTest {
    private static LeafResource tagged(String tag) {
        return new LeafResource("id", "key", tag, Map.of());
    }

    @Test
    void onlyTheExactTagOfASiteOfThisStoreIsDeletable() {
        Set<Long> ours = Set.of(7L);
        assertThat(ReconcileCommand.deletable(tagged("converge:site-7"), ours::contains)).isTrue();
        assertThat(ReconcileCommand.deletable(tagged("converge:site-8"), ours::contains))
                .as("a site this store does not have: another installation's").isFalse();
        for (String tag : new String[] {null, "", "converge:", "converge:anything", "converge:site-07", "converge:site-7x",
                "xconverge:site-7", "converge:site-7 ", "converge:stg:site-7"}) {
            assertThat(ReconcileCommand.deletable(tagged(tag), ours::contains)).as(String.valueOf(tag)).isFalse();
        }
    }
}
