package dev.converge.leafsim;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.leafsim.fault.FaultDecision;
import dev.converge.leafsim.fault.FaultPlan;
import dev.converge.leafsim.fault.FaultType;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.time.Duration;
import java.util.Map;

/**
 * One route of a simulated leaf: checks the bearer token, asks the {@link FaultPlan} what goes
 * wrong on this call, runs the leaf's action unless a fault answers first, and then delivers,
 * breaks, holds or drops the answer. Faults are decided per call, so a driver meets the same
 * mix a flaky real service would give it.
 */
final class FaultingRoute implements Handler {
    private final String leaf;
    private final String route;
    private final BearerAuth auth;
    private final FaultPlan faults;
    private final ServerClosing closing;
    private final Duration defaultHang;
    private final ObjectMapper json;
    private final LeafAction action;

    FaultingRoute(String leaf, String route, LeafSimParts parts, BearerAuth auth, LeafAction action) {
        this.leaf = leaf;
        this.route = route;
        this.auth = auth;
        this.faults = parts.faults();
        this.closing = parts.closing();
        this.defaultHang = parts.config().defaultHang();
        this.json = parts.json();
        this.action = action;
    }

    @Override
    public void handle(Context ctx) throws Exception {
        if (!auth.permits(ctx)) {
            write(ctx, SimResponse.of(401, Map.of("message", "Bad credentials"))
                    .withHeader("WWW-Authenticate", "Bearer"));
            return;
        }
        FaultDecision decision = faults.decide(leaf, route);
        if (decision.latencyMs() > 0) {
            closing.await(Duration.ofMillis(decision.latencyMs()));
        }
        FaultType fault = decision.outcome();
        if (fault == FaultType.ERROR_BEFORE) {
            write(ctx, SimResponse.of(500, Map.of("message", "Server Error")));
            return;
        }
        if (fault == FaultType.THROTTLE) {
            Integer seconds = decision.outcomeRule().retryAfterSeconds();
            write(ctx, SimResponse.of(429, Map.of("message", "Too Many Attempts."))
                    .withHeader("Retry-After", String.valueOf(seconds == null ? 1 : seconds)));
            return;
        }
        SimResponse answer = action.run(ctx);
        if (fault == null) {
            write(ctx, answer);
            return;
        }
        switch (fault) {
            case ERROR_AFTER -> write(ctx, SimResponse.of(500, Map.of("message", "Server Error")));
            case HANG_AFTER -> {
                Long hangMs = decision.outcomeRule().hangMs();
                closing.await(hangMs == null ? defaultHang : Duration.ofMillis(hangMs));
                write(ctx, answer);
            }
            case MALFORMED_AFTER -> writeMalformed(ctx, answer, decision.hitNumber());
            case RESET_AFTER -> ConnectionReset.abort(ctx);
            default -> throw new IllegalStateException("unhandled fault " + fault);
        }
    }

    private void write(Context ctx, SimResponse response) throws Exception {
        ctx.status(response.status());
        response.headers().forEach(ctx::header);
        if (response.body() != null) {
            ctx.contentType("application/json").result(json.writeValueAsString(response.body()));
        }
    }

    /** Alternates a truncated document with valid JSON that lacks every expected field. */
    private void writeMalformed(Context ctx, SimResponse answer, long hitNumber) throws Exception {
        String full = json.writeValueAsString(answer.body() == null ? Map.of("ok", true) : answer.body());
        String body = hitNumber % 2 == 1 ? full.substring(0, Math.max(1, full.length() / 2)) : "{\"ok\":true}";
        int status = answer.isSuccess() && answer.status() != 204 ? answer.status() : 200;
        ctx.status(status).contentType("application/json").result(body);
    }
}
