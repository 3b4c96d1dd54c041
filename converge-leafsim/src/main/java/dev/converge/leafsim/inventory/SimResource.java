package dev.converge.leafsim.inventory;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One resource as a simulated leaf holds it: the ground truth a checker compares with our ledger.
 *
 * @param id         the leaf's own id (repository id, site id, license key)
 * @param scope      where the natural key is unique (org, server) or null where it is not
 * @param naturalKey repository name, domain, ...
 * @param tag        the caller's free text that says whose it is (description, tags, name)
 * @param createdAt  when the leaf accepted the create
 * @param fields     the resource as the leaf's API returns it
 */
public record SimResource(String id, String scope, String naturalKey, String tag, Instant createdAt,
        Map<String, Object> fields) {
    public SimResource {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(naturalKey, "naturalKey");
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    SimResource withFields(Map<String, Object> newFields) {
        return new SimResource(id, scope, naturalKey, tag, createdAt, newFields);
    }
}
