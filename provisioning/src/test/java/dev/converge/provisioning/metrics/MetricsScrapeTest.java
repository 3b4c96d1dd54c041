package dev.converge.provisioning.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.site.SiteRequest;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.tenant.Tenants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code /metrics} as a Prometheus server scrapes it, after a few sites: every family says what it
 * is (HELP); timers are histograms with a few explicit buckets (aggregatable across nodes, unlike
 * summaries), so a job type costs a bounded number of series; one leaf-call timer; completions
 * counted apart from retries; and the JVM, the process and the connection pool are there.
 */
class MetricsScrapeTest {
    private static final Pattern TYPE = Pattern.compile("# TYPE (\\S+) (\\S+)");
    private static final Pattern JOB_TYPE = Pattern.compile("type=\"([^\"]+)\"");

    private static final Pattern DOC_ROW = Pattern.compile("^\\| `(converge\\.[a-z._]+)` \\| ([a-z ]+?)(?: \\(.*?\\))? \\|",
            Pattern.MULTILINE);

    /**
     * Before any job, site or leaf call, a scrape lists every engine meter family that
     * docs/operations.md documents (so alerts have a series from the start), and the engine
     * exports no family the document does not list.
     */
    @Test
    void anIdleServerListsEveryDocumentedEngineFamily() throws Exception {
        String doc = Files.readString(Path.of("../docs/operations.md"));
        Map<String, String> documented = new LinkedHashMap<>();
        for (Matcher m = DOC_ROW.matcher(doc); m.find(); ) {
            String name = m.group(1).replace('.', '_');
            String type = m.group(2);
            documented.put(switch (type) {
                case "counter", "function counter" -> name + "_total";
                case "timer" -> name + "_seconds";
                case "gauge" -> name;
                default -> throw new AssertionError("a meter type the test does not know: " + type + " of " + name);
            }, type);
        }
        assertThat(documented).as("meters documented in docs/operations.md").hasSizeGreaterThan(20);
        try (ProvisioningFixture f = new ProvisioningFixture()) {
            f.service().engine().metrics().orElseThrow().sample();
            String scrape = f.service().meters().scrape();
            Map<String, String> types = new LinkedHashMap<>();
            for (Matcher m = TYPE.matcher(scrape); m.find(); ) {
                types.put(m.group(1), m.group(2));
            }
            assertThat(types.keySet()).as("families in an idle server's scrape").containsAll(documented.keySet());
            List<String> undocumented = types.keySet().stream().filter(n -> n.startsWith("converge_"))
                    .filter(n -> !documented.containsKey(n) && !documented.containsKey(n.replaceAll("_max$", "")))
                    .filter(n -> !SERVICE_FAMILIES.contains(n)).toList();
            assertThat(undocumented).as("engine families the document does not list").isEmpty();
        }
    }

    /** The service's own families, described in prose under the engine's tables. */
    private static final List<String> SERVICE_FAMILIES = List.of("converge_jobs_total", "converge_sites",
            "converge_site_provisionings_limit", "converge_http_requests_seconds", "converge_http_requests_seconds_max", "converge_api_token_lookups_total", "converge_orphans_removed_total");

    @Test
    void theScrapeIsAggregatableBoundedAndComplete() {
        try (ProvisioningFixture f = new ProvisioningFixture()) {
            Provisioning p = f.service();
            Tenants.Created t = p.tenants().create("metrics");
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(((Sites.Created) p.sites().request(t.tenant().id(), new SiteRequest(
                        p.leads().create(t.tenant().id(), "Ada", "ada@example.com").id(), "metrics-" + i, null, null)))
                        .site().id());
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> ids.stream().allMatch(id ->
                    p.sites().get(t.tenant().id(), id).orElseThrow().state() == SiteState.ACTIVE));
            String scrape = p.meters().scrape();

            Map<String, String> types = new LinkedHashMap<>();
            for (Matcher m = TYPE.matcher(scrape); m.find(); ) {
                types.put(m.group(1), m.group(2));
            }
            List<String> unexplained = new ArrayList<>();
            types.keySet().forEach(family -> {
                Matcher help = Pattern.compile("# HELP " + Pattern.quote(family) + " (.*)").matcher(scrape);
                if (!help.find() || help.group(1).isBlank()) {
                    unexplained.add(family);
                }
            });
            assertThat(unexplained).as("families without HELP").isEmpty();
            assertThat(types).as("no summaries: they cannot be added up across nodes").doesNotContainValue("summary");
            assertThat(types).containsEntry("converge_jobs_run_seconds", "histogram")
                    .containsEntry("converge_leaf_call_seconds", "histogram").doesNotContainKey("converge_leaf_calls_seconds");
            assertThat(types.keySet()).as("the JVM, the process and the pool").contains("jvm_memory_used_bytes",
                    "jvm_threads_live_threads", "process_cpu_usage", "process_uptime_seconds",
                    "hikaricp_connections_active", "hikaricp_connections_pending");

            Map<String, Integer> seriesPerType = new LinkedHashMap<>();
            for (String line : scrape.split("\n")) {
                Matcher m = JOB_TYPE.matcher(line);
                if (line.startsWith("converge_jobs") && m.find()) {
                    seriesPerType.merge(m.group(1), 1, Integer::sum);
                }
            }
            System.out.println("series per job type: " + seriesPerType);
            assertThat(seriesPerType).isNotEmpty();
            assertThat(seriesPerType.values()).as("series per job type: %s", seriesPerType).allMatch(n -> n <= 15);
            assertThat(scrape.lines()).as("the fixture's one node of 8 handlers, 1.25 provisionings each")
                    .contains("converge_site_provisionings_limit 10.0");
            List<String> completed = scrape.lines().filter(l -> l.startsWith("converge_jobs_completed_total{")).toList();
            assertThat(completed).isNotEmpty().as("completions are completions: a retry is not one")
                    .noneMatch(l -> l.contains("outcome=\"retried\"") || l.contains("outcome=\"lease_lost\""));
        }
    }
}
