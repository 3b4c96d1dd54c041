package dev.converge.ledger;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a resource type's create receives.
 *
 * @param naturalKey     the key that makes the resource unique for us
 * @param tag            what the resource must carry to be recognised as ours later (adoption)
 * @param idempotencyKey derived from the ledger row (never random per attempt): send it where
 *                       the leaf accepts one, so a retry after an ambiguous outcome is recognised
 * @param params         the rest of what the create needs
 */
public record CreateRequest(String naturalKey, String tag, String idempotencyKey, Map<String, Object> params) {
    public CreateRequest {
        params = params == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }
}
