package dev.converge.provisioning.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.provisioning.access.Credential;
import dev.converge.provisioning.access.Credentials;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.access.Tenant;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Who may call what. {@code Authorization: Bearer <token>} resolves to a {@link Credential}; each
 * route says which {@link Scope}s it admits ({@link #allow}), and a token of another scope gets a
 * 403 problem naming the scope it lacks, before the handler runs. A missing and an unknown token
 * get the same 401 with the RFC 6750 challenge. The token is only hashed; it is never logged,
 * echoed in a problem, or stored. New routes (and servlets outside Javalin's routing, through
 * {@link #decide}) use this one check, so a route cannot forget its scope and still work.
 */
public final class Authz implements Authenticator {
    private static final String CREDENTIAL = "converge.credential";
    private static final String SCHEME = "Bearer ";
    private static final String REALM = "Bearer realm=\"converge\"";

    private final Credentials credentials;
    private final ObjectMapper json;
    private final AuthFailures failures;

    Authz(Credentials credentials, ObjectMapper json, AuthFailures failures) {
        this.credentials = credentials;
        this.json = json;
        this.failures = failures;
    }

    Credentials credentials() {
        return credentials;
    }

    @Override
    public Optional<Credential> authenticate(String authorizationHeader) {
        if (authorizationHeader == null || authorizationHeader.length() <= SCHEME.length()
                || !authorizationHeader.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return Optional.empty();
        }
        return credentials.authenticate(authorizationHeader.substring(SCHEME.length()).strip());
    }

    /** A handler that runs {@code handler} only for a token of one of {@code scopes}. */
    public Handler allow(Set<Scope> scopes, Handler handler) {
        Set<Scope> allowed = EnumSet.copyOf(scopes);
        return ctx -> {
            require(ctx, allowed);
            handler.handle(ctx);
        };
    }

    /** {@link #allow} for the operator credential only: the ops surface. */
    public Handler operator(Handler handler) {
        return allow(EnumSet.of(Scope.OPERATOR), handler);
    }

    /** The request's credential if it has one of {@code scopes}; otherwise a 401 or 403 problem is thrown. */
    public Credential require(Context ctx, Set<Scope> scopes) {
        Credential c = ctx.attribute(CREDENTIAL);
        if (c == null) {
            Decision d = decide(ctx.header("Authorization"), scopes, ctx.ip());
            if (d.credential().isEmpty()) {
                throw d.problem();
            }
            c = d.credential().get();
            ctx.attribute(CREDENTIAL, c);
        } else if (!c.allows(scopes)) {
            throw forbidden(c, scopes);
        }
        return c;
    }

    /**
     * Puts the failed-authentication limit in front of routes that check credentials their own way
     * (the operator dashboard's session exchange and API): an address over its limit is answered 429
     * before anything under {@code base} runs, and a 401 to a request that presented a credential (an
     * {@code Authorization} header, or a POST, which is how a login sends its token) counts as one
     * failure of its address.
     */
    public void limitFailures(io.javalin.config.RoutesConfig routes, String base) {
        routes.before(base + "/*", ctx -> {
            OptionalLong wait = failures.refusal(ctx.ip());
            if (wait.isPresent()) {
                throw tooManyFailures(wait.getAsLong());
            }
        });
        routes.after(base + "/*", ctx -> {
            if (ctx.status().getCode() == 401 && (ctx.header("Authorization") != null
                    || ctx.method() == io.javalin.http.HandlerType.POST)) {
                failures.failed(ctx.ip());
            }
        });
    }

    /** A before-handler: the request goes on with its credential attached, or is answered 401. */
    void authenticated(Context ctx) {
        require(ctx, EnumSet.allOf(Scope.class));
    }

    /**
     * The decision for a request seen outside Javalin's routing: its credential, or the problem to
     * answer ({@link Decision#status()}, {@link Decision#headers()}, {@link Decision#body()}). A
     * client address that has failed authentication too often lately is answered 429 before its
     * token is looked at.
     */
    public Decision decide(String authorizationHeader, Set<Scope> scopes, String clientAddress) {
        OptionalLong wait = failures.refusal(clientAddress);
        if (wait.isPresent()) {
            return new Decision(Optional.empty(), tooManyFailures(wait.getAsLong()), json);
        }
        Optional<Credential> c = authenticate(authorizationHeader);
        if (c.isEmpty()) {
            failures.failed(clientAddress);
            return new Decision(Optional.empty(), new ApiProblem(ProblemType.UNAUTHORIZED, authorizationHeader == null
                    ? "Send Authorization: Bearer <token>." : "The bearer token is not valid.")
                    .header("WWW-Authenticate", authorizationHeader == null ? REALM
                            : REALM + ", error=\"invalid_token\""), json);
        }
        if (!c.get().allows(scopes)) {
            return new Decision(Optional.empty(), forbidden(c.get(), scopes), json);
        }
        return new Decision(c, null, json);
    }

    /** The 429 for an address over its limit of failed authentications. */
    private static ApiProblem tooManyFailures(long waitSeconds) {
        return new ApiProblem(ProblemType.RATE_LIMITED, "Too many requests from this address failed authentication. "
                + "Retry after " + waitSeconds + " s with a valid token.").header("Retry-After", Long.toString(waitSeconds));
    }

    private static ApiProblem forbidden(Credential c, Set<Scope> scopes) {
        String needed = Scope.names(scopes);
        return new ApiProblem(ProblemType.INSUFFICIENT_SCOPE, "This needs a token with scope " + needed
                + "; this token's scope is " + c.scope().sql() + ".")
                .with("required_scopes", scopes.stream().sorted().map(Scope::sql).toList())
                .with("token_scope", c.scope().sql())
                .header("WWW-Authenticate", REALM + ", error=\"insufficient_scope\", scope=\""
                        + String.join(" ", scopes.stream().sorted().map(Scope::sql).toList()) + "\"");
    }

    /** The credential {@link #require} attached to the request. */
    public static Credential credential(Context ctx) {
        Credential c = ctx.attribute(CREDENTIAL);
        if (c == null) {
            throw new IllegalStateException("route " + ctx.path() + " is not behind authentication");
        }
        return c;
    }

    /** The tenant the request acts for; a route that admits the operator must not ask. */
    public static Tenant tenant(Context ctx) {
        Credential c = credential(ctx);
        if (c.tenant() == null) {
            throw new IllegalStateException("route " + ctx.path() + " admits a credential with no tenant");
        }
        return c.tenant();
    }

    /** A credential, or the problem that refuses the request. */
    public static final class Decision {
        private final Optional<Credential> credential;
        private final ApiProblem problem;
        private final ObjectMapper json;

        private Decision(Optional<Credential> credential, ApiProblem problem, ObjectMapper json) {
            this.credential = credential;
            this.problem = problem;
            this.json = json;
        }

        public Optional<Credential> credential() {
            return credential;
        }

        ApiProblem problem() {
            return problem;
        }

        public int status() {
            return problem == null ? 200 : problem.status();
        }

        /** The headers to answer with ({@code WWW-Authenticate}, {@code Retry-After}); empty when allowed. */
        public Map<String, String> headers() {
            return problem == null ? Map.of() : problem.headers();
        }

        /** The RFC 9457 problem as JSON. */
        public String body() {
            if (problem == null) {
                return null;
            }
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("type", problem.type().uri());
            b.put("title", problem.type().title());
            b.put("status", problem.status());
            b.put("detail", problem.detail());
            b.putAll(problem.extensions());
            try {
                return json.writeValueAsString(b);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("problem does not serialize", e);
            }
        }
    }
}
