package dev.converge.dashboard;

import dev.converge.Converge;
import dev.converge.ledger.ResourceType;
import io.javalin.Javalin;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The README's "In your own application" snippet, as written there, so that it compiles against
 * the dashboard it describes (core's {@code DocSnippetsTest} checks the page and this file agree).
 * It is compiled, not run: it reads its session secret from the environment and takes port 8080;
 * {@link EmbeddedApp} runs the same builder for the dashboard's tests.
 */
final class ReadmeDashboardSnippet {
    interface MyTokens {
        Optional<String> operatorId(String token);
    }

    private final MyTokens myTokens;
    private final ResourceType repositories;
    private final ResourceType licenses;

    ReadmeDashboardSnippet(MyTokens myTokens, ResourceType repositories, ResourceType licenses) {
        this.myTokens = myTokens;
        this.repositories = repositories;
        this.licenses = licenses;
    }

    List<Map<String, String>> myTenants() {
        return List.of(Map.of("id", "t-1"));
    }

    void mount(Converge engine) {
        Dashboard dashboard = Dashboard.builder(engine)
                .operators(token -> myTokens.operatorId(token).map(id -> new Dashboard.Operator(id, null)))
                .sessionSecret(System.getenv("MY_DASHBOARD_SECRET"))   // optional: else per process
                .resources(() -> List.of(repositories, licenses))     // the leaves the orphans page lists
                .page(new Dashboard.Page("tenants", "Tenants", ctx -> ctx.json(myTenants()), "myapp/tenants.js"))
                .build();
        Javalin.create(cfg -> dashboard.mount(cfg, "/ops")).start(8080);
    }
}
