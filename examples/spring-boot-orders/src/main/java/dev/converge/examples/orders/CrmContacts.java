package dev.converge.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceType;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Contacts in the CRM. The CRM keeps one contact per external reference (our natural key), so a
 * create is idempotent by constraint: before creating again, the ledger looks the contact up and
 * adopts it only if it carries our tag (R6).
 */
@Component
public class CrmContacts {
    public static final String KIND = "crm.contact";

    private final LeafHttp http;

    public CrmContacts(@Value("${orders.crm.url}") String url) {
        this.http = new LeafHttp("crm", url);
    }

    public ResourceType contacts() {
        return ResourceType.named(KIND)                        // "crm.contact"
                // the CRM keeps one contact per external_ref: a repeat is refused, so the ledger looks first
                .createdBy(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, req -> contact(http.post("/contacts",
                        Map.of("external_ref", req.naturalKey(), "email", req.params().get("email"), "tag", req.tag()), null)))
                .findBy(ref -> Optional.ofNullable(http.get("/contacts?external_ref="
                        + URLEncoder.encode(ref, StandardCharsets.UTF_8))).map(CrmContacts::contact))
                .deletedBy(contact -> http.delete("/contacts/" + contact.leafId()))   // 404 counts as deleted
                .build();
    }

    // strict parsing (R4): an answer the driver cannot read is ambiguous, never a guess
    private static LeafResource contact(JsonNode c) throws AmbiguousOutcome {
        if (!c.hasNonNull("id") || !c.hasNonNull("external_ref")) {
            throw new AmbiguousOutcome("crm", "a contact answer without an id or reference");
        }
        return new LeafResource(c.get("id").asText(), c.get("external_ref").asText(),
                c.hasNonNull("tag") ? c.get("tag").asText() : null, Map.of());
    }
}
