package dev.converge.proof.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.leafsim.inventory.InventoryEvent;
import dev.converge.leafsim.inventory.InventoryEvent.Kind;
import dev.converge.leafsim.inventory.InventorySnapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A duplicate is a second resource of one key while the first still exists: a create after the
 * first was deleted (a person's retry of a failed site) is not one; two live at once are, in
 * whatever order the leaf logged them, and only for the tag that made them.
 */
class OverlappingCreatesTest {
    private final List<InventoryEvent> events = new ArrayList<>();

    private void log(Kind kind, String id, String key, String tag) {
        events.add(new InventoryEvent(events.size() + 1, Instant.EPOCH.plusSeconds(events.size()), kind, id, "org", key, tag));
    }

    private int overlapping(String key, String tag) {
        return ConvergenceCheck.overlappingCreates(new InventorySnapshot("githost", List.of(), List.copyOf(events)), key, tag);
    }

    @Test
    void aCreateAfterTheDeleteIsANewResourceNotADuplicate() {
        log(Kind.CREATED, "1", "shop", "ours");
        log(Kind.DELETED, "1", "shop", "ours");
        log(Kind.CREATED, "2", "shop", "ours");
        assertThat(overlapping("shop", "ours")).isZero();
    }

    @Test
    void twoLiveAtOnceAreADuplicateEvenIfBothWereDeletedLater() {
        log(Kind.CREATED, "1", "shop", "ours");
        log(Kind.CREATED, "2", "shop", "ours");
        log(Kind.DELETED, "1", "shop", "ours");
        log(Kind.DELETED, "2", "shop", "ours");
        assertThat(overlapping("shop", "ours")).isEqualTo(1);
    }

    @Test
    void anotherTagsResourceOrAnotherKeyIsNotCounted() {
        log(Kind.CREATED, "1", "shop", "theirs");
        log(Kind.CREATED, "2", "shop", "ours");
        log(Kind.CREATED, "3", "cafe", "ours");
        assertThat(overlapping("shop", "ours")).isZero();
        assertThat(overlapping("shop", "theirs")).isZero();
    }
}
