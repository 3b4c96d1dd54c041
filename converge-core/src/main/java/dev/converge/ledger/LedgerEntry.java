package dev.converge.ledger;

import java.time.Instant;
import java.util.Map;

/**
 * The durable record of one external resource: what it is, who owns it, what the leaf said,
 * and which delivery (job and lease epoch) last wrote it.
 */
public record LedgerEntry(long id, String kind, String naturalKey, Long flowId, String subject, LedgerState state,
        RepetitionSafety safety, String leafId, Map<String, Object> data, int generation, Long ownerJobId,
        Long ownerEpoch, String lastError, Instant createdAt, Instant updatedAt, Instant confirmedAt) {

    public LeafResource toResource(String tag) {
        return new LeafResource(leafId, naturalKey, tag, data);
    }
}
