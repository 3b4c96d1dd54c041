package dev.converge.provisioning.api;

import dev.converge.dashboard.Dashboard;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.access.Credentials;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.hand.OperatorActions;
import io.javalin.config.JavalinConfig;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's dashboard ({@link Dashboard}) at {@code /ui}, behind the operator credential: an
 * operator token is exchanged for its session, a revoked token ends its sessions, "retry now" and
 * "cancel" go through {@link OperatorActions} (recorded like every operator action), and the
 * service adds its Sites page ({@link DashboardSites}).
 */
public final class OperatorDashboard implements ApiExtension {
    /** Signs the dashboard's session cookies; at least 32 characters, the same on every node. */
    public static final String SECRET_ENV = "CONVERGE_DASHBOARD_SECRET";
    static final String PATH = "/ui";
    private static final Logger log = LoggerFactory.getLogger(OperatorDashboard.class);

    private final Map<String, String> env;

    public OperatorDashboard() {
        this(System.getenv());
    }

    OperatorDashboard(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public void configure(JavalinConfig config, ApiContext context) {
        context.authz().limitFailures(config.routes, PATH);
        dashboard(context.service(), env).mount(config, PATH);
    }

    static Dashboard dashboard(ProvisioningService service, Map<String, String> env) {
        Credentials credentials = service.tenants().credentials();
        OperatorActions hand = service.hand();
        Dashboard.Builder b = Dashboard.builder(service.engine())
                .operators(new Dashboard.Operators() {
                    @Override
                    public Optional<Dashboard.Operator> authenticate(String token) {
                        return credentials.authenticate(token).filter(c -> c.scope() == Scope.OPERATOR)
                                .map(c -> new Dashboard.Operator(String.valueOf(c.tokenId()), c.expiresAt()));
                    }

                    @Override
                    public boolean live(String operatorId) {
                        try {
                            return credentials.operator(Long.parseLong(operatorId)).isPresent();
                        } catch (NumberFormatException e) {
                            return false;
                        }
                    }
                })
                .actions(new Dashboard.Actions() {
                    // recorded as operator actions (GET /v1/ops/actions), like the CLI's and the ops routes'
                    @Override
                    public Dashboard.Outcome retryJob(String operatorId, long jobId, String reason) {
                        return outcome(hand.retryJob(actor(operatorId), jobId, reason));
                    }

                    @Override
                    public Dashboard.Outcome cancelJob(String operatorId, long jobId, String reason) {
                        return outcome(hand.cancelJob(actor(operatorId), jobId, reason));
                    }

                    @Override
                    public Dashboard.Outcome retryFlow(String operatorId, long flowId, String reason) {
                        return outcome(hand.retryFlow(actor(operatorId), flowId, reason));
                    }

                    @Override
                    public Dashboard.Outcome settleEntry(String operatorId, long entryId, String leafId, String reason) {
                        return outcome(hand.settleEntry(actor(operatorId), entryId, leafId, reason));
                    }

                    @Override
                    public Dashboard.Outcome settleToken(String operatorId, long tokenId, boolean used, String reason) {
                        return outcome(hand.settleToken(actor(operatorId), tokenId, used, reason));
                    }

                    @Override
                    public Dashboard.Outcome pauseRecurring(String operatorId, String name, String reason) {
                        return outcome(hand.pauseRecurring(actor(operatorId), name, reason));
                    }

                    @Override
                    public Dashboard.Outcome resumeRecurring(String operatorId, String name, String reason) {
                        return outcome(hand.resumeRecurring(actor(operatorId), name, reason));
                    }

                    @Override
                    public Dashboard.Outcome runRecurring(String operatorId, String name, String reason) {
                        return outcome(hand.runRecurring(actor(operatorId), name, reason));
                    }
                })
                .resources(() -> service.resources().all())
                .page(DashboardSites.page(service));
        String secret = env.get(SECRET_ENV);
        if (secret == null || secret.isBlank()) {
            log.info("{} is not set: dashboard sessions are signed with a random secret of this process (they end when"
                    + " it stops and do not cross processes)", SECRET_ENV);
        } else {
            try {
                b.sessionSecret(secret);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(SECRET_ENV + " must be at least 32 characters", e);
            }
        }
        return b.build();
    }

    private static Dashboard.Outcome outcome(OperatorActions.Outcome o) {
        return new Dashboard.Outcome(o.applied(), o.detail());
    }

    /** The actor recorded with an action, as the ops routes name an operator token. */
    private static String actor(String operatorId) {
        return Scope.OPERATOR.sql() + ":token-" + operatorId;
    }
}
