package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.conversation.Conversations;
import dev.converge.provisioning.validation.PublicId;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The assistant's conversations: a person's message (through the tenant's agent or service token)
 * starts one turn, run by a worker, answered 202 with where to read it; the transcript is read
 * back. {@code Idempotency-Key} is optional: with it, a repeated request starts no second turn.
 */
final class ConversationRoutes {
    static final String COLLECTION = "/v1/conversations";
    static final String ONE = "/v1/conversations/{id}";
    static final String MESSAGES = "/v1/conversations/{id}/messages";
    private static final Set<String> FIELDS = Set.of("message");
    private static final Set<Scope> WRITE = EnumSet.of(Scope.AGENT, Scope.SERVICE);

    private final Conversations conversations;
    private final ApiParts parts;

    ConversationRoutes(Conversations conversations, ApiParts parts) {
        this.conversations = conversations;
        this.parts = parts;
    }

    void register(RoutesConfig routes) {
        Authz authz = parts.authz();
        routes.post(COLLECTION, authz.allow(WRITE, this::start));
        routes.post(MESSAGES, authz.allow(WRITE, this::send));
        routes.get(ONE, authz.allow(Scope.TENANT_READ, this::get));
    }

    private void start(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        var key = parts.idempotency().key(ctx, false);
        ObjectNode body = parts.body().read(ctx);
        parts.idempotency().run(ctx, tenant.id(), key, "POST " + COLLECTION, body,
                () -> started(conversations.start(tenant.id(), message(body)))).send(ctx);
    }

    /**
     * The conversation a path names, by its public id ({@code conv_...}); the database id a node of
     * the previous version gave out is still taken while such nodes may have answered. Another
     * tenant's, or a made-up one, is 404; a malformed one 400.
     */
    private long conversation(Context ctx, Tenant tenant) {
        PublicId.Ref ref = PathIds.ref(ctx, PublicId.CONVERSATION);
        if (!ref.isPublic()) {
            return ref.legacyId();
        }
        return conversations.byPublicId(tenant.id(), ref.publicId())
                .orElseThrow(() -> PathIds.notFound("conversation", ref.text()));
    }

    private void send(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        String named = ctx.pathParam("id");
        long id = conversation(ctx, tenant);
        var key = parts.idempotency().key(ctx, false);
        ObjectNode body = parts.body().read(ctx);
        parts.idempotency().run(ctx, tenant.id(), key, "POST " + COLLECTION + "/" + named + "/messages", body, () -> {
            try {
                return started(conversations.send(tenant.id(), id, message(body)));
            } catch (Conversations.NotFound e) {
                throw PathIds.notFound("conversation", named);
            } catch (Conversations.TurnRunning e) {
                throw new ApiProblem(ProblemType.TURN_RUNNING, "Turn " + e.turn() + " of this conversation is still "
                        + "running: read the conversation until it ends, then send the next message.")
                        .with("turn", e.turn()).header("Retry-After", "2");
            }
        }).send(ctx);
    }

    private static String message(ObjectNode body) {
        BodyFields f = new BodyFields(body, FIELDS);
        String m = f.requiredText("message");
        f.check();
        if (m.isBlank() || m.length() > Conversations.MAX_MESSAGE) {
            throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, "message", "message must be 1-"
                    + Conversations.MAX_MESSAGE + " characters");
        }
        return m;
    }

    private ApiResponse started(Conversations.Started s) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("conversation_id", s.publicId());
        b.put("turn", s.turn());
        b.put("state", "running");
        b.put("what_to_do", "The assistant is answering. Read GET " + COLLECTION + "/" + s.publicId()
                + " until the turn's state is answered, budget_spent or failed.");
        b.put("links", Map.of("self", COLLECTION + "/" + s.publicId(),
                "messages", COLLECTION + "/" + s.publicId() + "/messages"));
        return parts.json(202, b, Map.of("Location", COLLECTION + "/" + s.publicId()));
    }

    private void get(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        long id = conversation(ctx, tenant);
        var t = conversations.transcript(tenant.id(), id).orElseThrow(() -> PathIds.notFound("conversation",
                ctx.pathParam("id")));
        parts.json(200, t.view(), Map.of()).send(ctx);
    }
}
