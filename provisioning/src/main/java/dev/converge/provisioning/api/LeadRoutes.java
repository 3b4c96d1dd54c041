package dev.converge.provisioning.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.limits.Limits;
import dev.converge.provisioning.validation.PublicId;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /v1/leads} and {@code GET /v1/leads/{id}}. An {@code Idempotency-Key} is optional
 * here (a lead is cheap to create twice, but a client that sends a key gets the same protocol).
 */
final class LeadRoutes {
    static final String COLLECTION = "/v1/leads";
    static final String ONE = "/v1/leads/{id}";
    private static final Set<String> FIELDS = Set.of("name", "email");

    private final Leads leads;
    private final ApiParts parts;

    LeadRoutes(Leads leads, ApiParts parts) {
        this.leads = leads;
        this.parts = parts;
    }

    void register(RoutesConfig routes) {
        routes.post(COLLECTION, parts.authz().allow(EnumSet.of(Scope.SERVICE), this::create));
        routes.get(ONE, parts.authz().allow(Scope.TENANT_READ, this::get));
    }

    /** A lead as the API shows it. */
    record LeadBody(@JsonProperty("id") String id, @JsonProperty("name") String name, @JsonProperty("email") String email,
            @JsonProperty("status") String status, @JsonProperty("created_at") String createdAt,
            @JsonProperty("updated_at") String updatedAt, @JsonProperty("links") Map<String, String> links) {

        static LeadBody of(Lead l) {
            return new LeadBody(l.publicId(), l.name(), l.email(), l.status().sql(), l.createdAt().toString(),
                    l.updatedAt().toString(), Map.of("self", COLLECTION + "/" + l.publicId()));
        }
    }

    private void create(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        var key = parts.idempotency().key(ctx, false);
        ObjectNode body = parts.body().read(ctx);
        parts.idempotency().run(ctx, tenant.id(), key, "POST " + COLLECTION, body, () -> {
            BodyFields f = new BodyFields(body, FIELDS);
            String name = f.requiredText("name");
            String email = f.requiredText("email");
            f.check();
            parts.limits().requireQuota(tenant.id(), Limits.Quota.LEADS);
            Lead lead = leads.create(tenant.id(), name, email);
            return parts.json(201, LeadBody.of(lead), Map.of("Location", COLLECTION + "/" + lead.publicId()));
        }).send(ctx);
    }

    private void get(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        PublicId.Ref ref = PathIds.ref(ctx, PublicId.LEAD);
        Lead lead = leads.idOf(tenant.id(), ref).flatMap(id -> leads.get(tenant.id(), id))
                .orElseThrow(() -> PathIds.notFound("lead", ref.text()));
        parts.json(200, LeadBody.of(lead), Map.of()).send(ctx);
    }
}
