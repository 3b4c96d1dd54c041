package dev.converge.provisioning.api;

import dev.converge.provisioning.validation.PublicId;
import io.javalin.http.Context;

/** The {@code {id}} of a path, and the 404 for an id the tenant does not have (whoever else might). */
final class PathIds {
    private PathIds() {
    }

    static long id(Context ctx) {
        String raw = ctx.pathParam("id");
        try {
            long id = Long.parseLong(raw);
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "id", "must be a positive integer");
    }

    /**
     * The {@code {id}} of a path naming a site, lead or conversation: its public id, or the database
     * id a node of the previous release gave out. Anything else is a 400 naming {@code id}.
     */
    static PublicId.Ref ref(Context ctx, PublicId kind) {
        return kind.parse(ctx.pathParam("id"))
                .orElseThrow(() -> ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "id", kind.expected()));
    }

    /** Another tenant's resource gets exactly this answer too: a 403 would confirm that it exists. */
    static ApiProblem notFound(String what, long id) {
        return new ApiProblem(ProblemType.NOT_FOUND, "No " + what + " " + id + ".");
    }

    /** {@link #notFound(String, long)} for a public id (already checked to be well-formed). */
    static ApiProblem notFound(String what, String id) {
        return new ApiProblem(ProblemType.NOT_FOUND, "No " + what + " " + id + ".");
    }
}
