package dev.converge.proof.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.RepetitionSafety;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which resources at a leaf the orphan check takes as accounted for by the ledger. */
class LedgerClaimsTest {
    static LedgerEntry entry(String key, LedgerState state, String leafId) {
        Instant t = Instant.parse("2026-12-02T07:00:00Z");
        return new LedgerEntry(1, "repository", key, 7L, "site:1", state, RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, leafId,
                Map.of(), 1, null, null, null, t, t, null);
    }

    @Test
    void aConfirmedOrDeletingEntryAccountsForItsLeafIdOnly() {
        LedgerClaims claims = new LedgerClaims(List.of(entry("s1-1", LedgerState.CONFIRMED, "r-1"),
                entry("s2-1", LedgerState.DELETING, "r-2")));
        assertThat(claims.accountsFor("repository", "r-1", "s1-1")).isTrue();
        assertThat(claims.accountsFor("repository", "r-2", "s2-1")).isTrue();
        assertThat(claims.accountsFor("repository", "r-9", "s1-1")).as("a second resource under the same name").isFalse();
    }

    @Test
    void anUnresolvedEntryWithoutLeafIdAccountsForItsNaturalKey() {
        LedgerClaims claims = new LedgerClaims(List.of(entry("s1-1", LedgerState.CLAIMED, null),
                entry("s2-1", LedgerState.UNCERTAIN, null),
                // torn down before its create was confirmed (a failing sibling, a run cut off mid-teardown): the
                // resource is being looked up to be deleted, and the entry is already counted as unconfirmed
                entry("s3-1", LedgerState.DELETING, null)));
        assertThat(claims.accountsFor("repository", "r-1", "s1-1")).isTrue();
        assertThat(claims.accountsFor("repository", "r-2", "s2-1")).isTrue();
        assertThat(claims.accountsFor("repository", "r-3", "s3-1")).isTrue();
    }

    @Test
    void aSettledEntryAccountsForNothing() {
        LedgerClaims claims = new LedgerClaims(List.of(entry("s1-1", LedgerState.DELETED, "r-1"),
                entry("s2-1", LedgerState.RELEASED, null)));
        assertThat(claims.accountsFor("repository", "r-1", "s1-1")).isFalse();
        assertThat(claims.accountsFor("repository", "r-2", "s2-1")).isFalse();
        assertThat(claims.accountsFor("repository", "r-9", "s9-1")).isFalse();
    }
}
