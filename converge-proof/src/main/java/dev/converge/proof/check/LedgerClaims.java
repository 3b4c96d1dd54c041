package dev.converge.proof.check;

import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the ledger says is ours at the leaves, as the orphan check reads it: a resource the ledger
 * records by its leaf id (confirmed, or being deleted), or one whose entry is still unresolved
 * with no leaf id yet (claimed, uncertain, or torn down before its create was confirmed), known
 * only by its natural key. The unresolved ones are counted as unconfirmed, never again as orphans.
 */
final class LedgerClaims {
    private final Set<String> recorded = new HashSet<>();
    private final Set<String> pending = new HashSet<>();

    LedgerClaims(List<LedgerEntry> ledger) {
        for (LedgerEntry e : ledger) {
            if (e.leafId() != null && (e.state() == LedgerState.CONFIRMED || e.state() == LedgerState.DELETING)) {
                recorded.add(e.kind() + "|" + e.leafId());
            } else if (e.state().unresolved()) {
                pending.add(e.kind() + "|" + e.naturalKey());
            }
        }
    }

    /** Whether the ledger accounts for the resource {@code leafId} under {@code naturalKey} of {@code kind}. */
    boolean accountsFor(String kind, String leafId, String naturalKey) {
        return recorded.contains(kind + "|" + leafId) || pending.contains(kind + "|" + naturalKey);
    }
}
