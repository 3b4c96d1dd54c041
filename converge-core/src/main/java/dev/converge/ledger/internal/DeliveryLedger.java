package dev.converge.ledger.internal;

import dev.converge.ledger.LeafCall;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.ResourceType;
import dev.converge.ledger.StepLedger;
import dev.converge.queue.Delivery;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The engine's ledger bound to one delivery. */
public record DeliveryLedger(LedgerEngine ledger, Delivery delivery) implements StepLedger {

    @Override
    public LedgerEntry ensure(ResourceType type, String naturalKey, Map<String, Object> params) {
        return ledger.ensure(delivery, type, naturalKey, null, params);
    }

    @Override
    public LedgerEntry ensure(ResourceType type, String naturalKey, String subject, Map<String, Object> params) {
        return ledger.ensure(delivery, type, naturalKey, subject, params);
    }

    @Override
    public <T> T call(LeafCall<T> call) {
        return ledger.call(delivery, call);
    }

    @Override
    public boolean teardownFlow(long flowId) {
        return ledger.teardownFlow(delivery, flowId);
    }

    @Override
    public boolean teardownSubject(String subject) {
        return ledger.teardownSubject(delivery, subject);
    }

    @Override
    public Optional<LedgerEntry> entry(long entryId) {
        return ledger.entry(entryId);
    }

    @Override
    public Optional<LedgerEntry> entry(String kind, String naturalKey) {
        return ledger.entry(kind, naturalKey);
    }

    @Override
    public List<LedgerEntry> entriesOfFlow(long flowId) {
        return ledger.entriesOfFlow(flowId);
    }

    @Override
    public List<LedgerEntry> entriesOfSubject(String subject) {
        return ledger.entriesOfSubject(subject);
    }
}
