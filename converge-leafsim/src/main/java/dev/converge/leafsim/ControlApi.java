package dev.converge.leafsim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.leafsim.fault.FaultPlan;
import dev.converge.leafsim.fault.FaultRule;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The simulator's own API under {@code /_control}: read a leaf's ground-truth inventory, set and
 * clear faults, read fault hit counters. It never takes a leaf token (a checker must not need the
 * credentials of the system it checks); it takes the control token when one is configured.
 */
final class ControlApi {
    private final ObjectMapper json;
    private final FaultPlan faults;
    private final BearerAuth auth;
    private final Function<String, SimulatedLeaf> leaves;

    ControlApi(LeafSimParts parts, Function<String, SimulatedLeaf> leaves) {
        this.json = parts.json();
        this.faults = parts.faults();
        this.auth = new BearerAuth(parts.config().controlToken());
        this.leaves = leaves;
    }

    void register(RoutesConfig routes) {
        routes.get("/_control/health", guarded(ctx -> respond(ctx, 200, Map.of("status", "ok"))));
        routes.get("/_control/inventory/{leaf}", guarded(this::inventory));
        routes.get("/_control/faults", guarded(ctx -> respond(ctx, 200, plan())));
        routes.post("/_control/faults", guarded(this::addFaults));
        routes.delete("/_control/faults", guarded(ctx -> {
            faults.clear();
            ctx.status(204);
        }));
        routes.get("/_control/faults/hits", guarded(ctx -> respond(ctx, 200, Map.of("hits", faults.hits()))));
        routes.delete("/_control/faults/hits", guarded(ctx -> {
            faults.resetHits();
            ctx.status(204);
        }));
    }

    private void inventory(Context ctx) throws Exception {
        SimulatedLeaf leaf = leaves.apply(ctx.pathParam("leaf"));
        if (leaf == null) {
            respond(ctx, 404, Map.of("message", "unknown leaf; expected one of " + LeafSim.LEAVES));
            return;
        }
        respond(ctx, 200, leaf.inventory().snapshot());
    }

    /** Accepts {@code {"seed": 7, "rules": [...]}}, a bare list of rules, or a single rule. */
    private void addFaults(Context ctx) throws Exception {
        List<FaultRule> rules = new ArrayList<>();
        try {
            JsonNode body = json.readTree(ctx.body());
            JsonNode ruleNodes = body.isArray() ? body : body.has("rules") ? body.get("rules") : null;
            if (ruleNodes == null && body.has("type")) {
                rules.add(json.treeToValue(body, FaultRule.class));
            } else if (ruleNodes != null) {
                for (JsonNode node : ruleNodes) {
                    rules.add(json.treeToValue(node, FaultRule.class));
                }
            }
            for (FaultRule rule : rules) {
                if (leaves.apply(rule.leaf()) == null) {
                    throw new IllegalArgumentException("unknown leaf '" + rule.leaf() + "'");
                }
            }
            if (body.hasNonNull("seed")) {
                faults.reseed(body.get("seed").asLong());
            }
        } catch (Exception e) {
            respond(ctx, 400, Map.of("message", "invalid fault rules: " + e.getMessage()));
            return;
        }
        faults.add(rules.toArray(FaultRule[]::new));
        respond(ctx, 200, plan());
    }

    private Map<String, Object> plan() {
        return Map.of("seed", faults.seed(), "rules", faults.rules());
    }

    private Handler guarded(Handler handler) {
        return ctx -> {
            if (auth.permits(ctx)) {
                handler.handle(ctx);
            } else {
                respond(ctx, 401, Map.of("message", "Bad credentials"));
            }
        };
    }

    private void respond(Context ctx, int status, Object body) throws Exception {
        ctx.status(status).contentType("application/json").result(json.writeValueAsString(body));
    }
}
