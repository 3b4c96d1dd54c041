package dev.converge.ledger;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A resource as the leaf reports it.
 *
 * @param leafId     the leaf's own id for it (what a delete needs)
 * @param naturalKey the key that makes it unique for us (repository name, domain, ...)
 * @param tag        what the resource carries to say whose it is (our subject id in a
 *                   description or comment), or null if it carries nothing
 * @param data       the rest of the leaf's answer worth keeping (URLs, license key, ...)
 */
public record LeafResource(String leafId, String naturalKey, String tag, Map<String, Object> data) {
    public LeafResource {
        Objects.requireNonNull(leafId, "leafId");
        data = data == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(data));
    }
}
