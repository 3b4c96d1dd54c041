package dev.converge.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceType;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Charges at the payment provider. A charge is idempotent by key: the provider answers a repeated
 * Idempotency-Key with the first charge, and the ledger derives that key from its own entry, so
 * a retry after a timeout can never charge twice. Its undo is a refund.
 */
@Component
public class PaymentProvider {
    public static final String KIND = "payments.charge";

    private final LeafHttp http;

    public PaymentProvider(@Value("${orders.payments.url}") String url) {
        this.http = new LeafHttp("payments", url);
    }

    public ResourceType charges() {
        return ResourceType.named(KIND)
                .createdBy(RepetitionSafety.IDEMPOTENT_BY_KEY, req -> {
                    JsonNode charge = http.post("/charges", Map.of("reference", req.naturalKey(),
                            "amount_cents", req.params().get("amount_cents"), "description", req.tag()), req.idempotencyKey());
                    if (!charge.hasNonNull("id")) {
                        throw new AmbiguousOutcome("payments", "a charge answer without an id");
                    }
                    return new LeafResource(charge.get("id").asText(), req.naturalKey(), req.tag(), Map.of());
                })
                .deletedBy(charge -> http.delete("/charges/" + charge.leafId())) // the refund
                .build();
    }
}
