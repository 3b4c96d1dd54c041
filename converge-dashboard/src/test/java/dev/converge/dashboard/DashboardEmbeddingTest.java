package dev.converge.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An application other than ours mounts the dashboard: a bare Javalin app over an engine on a
 * fresh PostgreSQL database ({@link EmbeddedApp}), at a path of its choosing, with its own idea of
 * who is an operator and a page of its own. Over real HTTP: the page and its assets, the session
 * exchange, every view's JSON, the actions with and without the session's CSRF token.
 */
class DashboardEmbeddingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static EmbeddedApp app;

    @BeforeAll
    static void start() {
        app = new EmbeddedApp();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    record Reply(int status, String type, String body, HttpResponse<String> raw) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }
    }

    record Session(String cookie, String csrf, String setCookie) {
    }

    private static Reply send(String method, String path, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(app.base() + path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body(), r);
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static Session login() {
        Reply r = send("POST", "/session", "{\"token\":\"" + EmbeddedApp.TOKEN + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        String set = r.raw().headers().firstValue("Set-Cookie").orElseThrow();
        return new Session(set.substring(0, set.indexOf(';')), r.json().get("csrf_token").asText(), set);
    }

    private static JsonNode read(Session s, String path) {
        Reply r = send("GET", path, null, "Cookie", s.cookie());
        assertThat(r.status()).as(path + ": " + r.body()).isEqualTo(200);
        return r.json();
    }

    @Test
    void thePageItsAssetsAndTheAppsOwnPageAreServedUnderTheMountPath() {
        Reply page = send("GET", "", null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.type()).startsWith("text/html");
        assertThat(page.raw().headers().firstValue("Content-Security-Policy").orElseThrow()).contains("script-src 'self'");
        assertThat(page.body()).contains("data-base=\"" + EmbeddedApp.MOUNT + "\"")
                .contains("src=\"" + EmbeddedApp.MOUNT + "/dashboard.js\"")
                .contains("<a href=\"#hello\">Hello</a>")
                .contains("src=\"" + EmbeddedApp.MOUNT + "/pages/hello.js\"")
                .doesNotContain("{{base}}").doesNotContain("/ui/");
        assertThat(send("GET", "/dashboard.js", null).body()).contains("ConvergeDashboard");
        assertThat(send("GET", "/dashboard.css", null).status()).isEqualTo(200);
        assertThat(send("GET", "/pages/hello.js", null).body()).contains("Hello, operator");

        Session s = login();
        assertThat(read(s, "/api/pages/hello").get("operator").asText()).as("the page knows its operator").isEqualTo("ops-1");
        assertThat(send("GET", "/api/pages/hello", null).status()).as("behind the operator, like every view").isEqualTo(401);
    }

    @Test
    void onlyAnOperatorReadsAndTheTokenIsExchangedOnceForAStrictHttpOnlyCookieOnTheMountPath() {
        Reply none = send("GET", "/api/overview", null);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.type()).startsWith("application/problem+json");
        assertThat(send("GET", "/api/overview", null, "Authorization", "Bearer not-the-token").status()).isEqualTo(401);
        assertThat(send("POST", "/session", "{\"token\":\"not-the-token\"}").json().get("detail").asText())
                .isEqualTo("This token is not an operator token.");
        assertThat(send("GET", "/api/overview", null, "Authorization", "Bearer " + EmbeddedApp.TOKEN).status())
                .as("a script may send the token itself").isEqualTo(200);

        Session s = login();
        assertThat(s.setCookie()).contains("HttpOnly").contains("SameSite=Strict").contains("Path=" + EmbeddedApp.MOUNT)
                .doesNotContain(EmbeddedApp.TOKEN);
        JsonNode current = read(s, "/session");
        assertThat(current.get("active").asBoolean()).isTrue();
        assertThat(current.get("csrf_token").asText()).isEqualTo(s.csrf());
        assertThat(read(s, "/api/overview").get("queues").isArray()).isTrue();

        // logout: the same cookie is refused from now on
        assertThat(send("DELETE", "/session", null, "Cookie", s.cookie()).status()).as("logout needs the CSRF token").isEqualTo(403);
        assertThat(send("DELETE", "/session", null, "Cookie", s.cookie(), "X-CSRF-Token", s.csrf()).status()).isEqualTo(200);
        assertThat(send("GET", "/api/overview", null, "Cookie", s.cookie()).status()).isEqualTo(401);
    }

    @Test
    void aFailedJobShowsItsStackTraceAndRetryNowNeedsTheSessionsCsrfToken() {
        long job = app.failedJob("order-7");
        Session s = login();
        JsonNode failed = null;
        for (JsonNode j : read(s, "/api/jobs?state=failed&type=shop.charge").get("items")) {
            if (j.get("id").asLong() == job) {
                failed = j;
            }
        }
        assertThat(failed).as("the failed job is listed").isNotNull();
        assertThat(failed.get("last_error").asText()).contains("IllegalStateException: the card service is down: order-7")
                .contains("\tat ");
        assertThat(failed.has("payload")).as("payloads are never shown").isFalse();

        String reason = "{\"reason\":\"the card service is back\"}";
        List<Integer> refused = new ArrayList<>();
        Reply noCsrf = send("POST", "/api/jobs/" + job + "/retry", reason, "Cookie", s.cookie());
        assertThat(noCsrf.type()).startsWith("application/problem+json");
        assertThat(noCsrf.json().get("type").asText()).isEqualTo("https://converge.dev/problems/csrf-token");
        refused.add(noCsrf.status());
        refused.add(send("POST", "/api/jobs/" + job + "/retry", reason, "Cookie", s.cookie(), "X-CSRF-Token", "forged").status());
        refused.add(send("POST", "/api/jobs/" + job + "/retry", reason, "X-CSRF-Token", s.csrf()).status());
        assertThat(refused).as("without the cookie, without or with a wrong CSRF token").containsExactly(403, 403, 403);
        assertThat(app.charges).as("nothing ran again").containsOnlyOnce("order-7");

        Reply retried = send("POST", "/api/jobs/" + job + "/retry", reason, "Cookie", s.cookie(), "X-CSRF-Token", s.csrf());
        assertThat(retried.status()).as(retried.body()).isEqualTo(200);
        assertThat(retried.json().get("detail").asText()).contains("runs again");
        await().atMost(Duration.ofSeconds(20)).until(() -> app.charges.stream().filter("order-7"::equals).count() == 2);
        await().atMost(Duration.ofSeconds(20)).until(() -> app.engine.job(job).orElseThrow().state().sql().equals("failed"));
        assertThat(send("POST", "/api/jobs/" + job + "/retry", reason, "Cookie", s.cookie(), "X-CSRF-Token", s.csrf()).status())
                .as("failed again: retried again, once more").isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> app.charges.stream().filter("order-7"::equals).count() == 3);
    }

    /** Each new action is CSRF-protected, wants a reason, and says why when it refuses or changes nothing. */
    @Test
    void theFlowLedgerAndTokenActionsRefuseWithAReasonThePersonCanRead() {
        Session s = login();
        long flow = app.failedFlow("order-70");
        long entry = app.uncertainEntry("refusals-1");
        long token = app.tokenOfUnknownUse("refusals", "VALUE-1");
        String[] auth = {"Cookie", s.cookie(), "X-CSRF-Token", s.csrf()};
        assertThat(send("POST", "/api/flows/" + flow + "/retry", "{\"reason\":\"x\"}", "Cookie", s.cookie()).status())
                .as("no CSRF token").isEqualTo(403);

        Reply noReason = send("POST", "/api/ledger/" + entry + "/settle", "{\"exists\":false}", auth);
        assertThat(noReason.status()).isEqualTo(422);
        assertThat(noReason.json().get("detail").asText()).contains("reason is required");
        Reply noLeafId = send("POST", "/api/ledger/" + entry + "/settle", "{\"exists\":true,\"reason\":\"seen\"}", auth);
        assertThat(noLeafId.status()).isEqualTo(422);
        assertThat(noLeafId.json().get("detail").asText()).contains("leaf_id is required");
        Reply notBoolean = send("POST", "/api/tokens/" + token + "/settle", "{\"used\":\"yes\",\"reason\":\"seen\"}", auth);
        assertThat(notBoolean.status()).isEqualTo(422);
        assertThat(notBoolean.json().get("detail").asText()).contains("used is required: true or false");
        Reply missing = send("POST", "/api/ledger/999999/settle", "{\"exists\":false,\"reason\":\"seen\"}", auth);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().get("detail").asText()).contains("There is no ledger entry 999999");

        Reply finished = send("POST", "/api/flows/" + flow + "/retry", "{\"reason\":\"try again\"}", auth);
        assertThat(finished.status()).isEqualTo(200);
        assertThat(finished.json().get("detail").asText()).contains("is failed, not needs_attention: nothing was retried");

        Reply settled = send("POST", "/api/tokens/" + token + "/settle", "{\"used\":true,\"reason\":\"the service has it\"}",
                auth);
        assertThat(settled.json().get("detail").asText()).contains("is spent");
        Reply again = send("POST", "/api/tokens/" + token + "/settle", "{\"used\":false,\"reason\":\"again\"}", auth);
        assertThat(again.json().get("detail").asText()).contains("no unknown use to settle").contains("nothing changed");
        assertThat(app.engine.tokens().get(token).orElseThrow().state().sql()).isEqualTo("spent");
        Reply badAction = send("POST", "/api/jobs/bulk", "{\"action\":\"delete\",\"reason\":\"x\"}", auth);
        assertThat(badAction.status()).isEqualTo(422);
        assertThat(badAction.json().get("detail").asText()).contains("action must be retry");
        Reply bulkNoReason = send("POST", "/api/jobs/bulk", "{\"action\":\"retry\"}", auth);
        assertThat(bulkNoReason.status()).isEqualTo(422);
        assertThat(send("POST", "/api/jobs/bulk", "{\"action\":\"retry\",\"reason\":\"x\"}", "Cookie", s.cookie()).status())
                .as("no CSRF token").isEqualTo(403);
        JsonNode none = read(s, "/api/jobs/selection?action=cancel&type=no.such.type");
        assertThat(none.get("count").asLong()).isZero();
        JsonNode tokens = read(s, "/api/tokens");
        assertThat(tokens.toString()).doesNotContain("VALUE-1");
    }

    @Test
    void aFailedFlowShowsItsTimelineAndItsCompensationsInTheOrderTheyRan() {
        long flow = app.failedFlow("order-8");
        JsonNode f = read(login(), "/api/flows/" + flow);
        assertThat(f.get("flow").get("state").asText()).isEqualTo("failed");
        List<String> ran = new ArrayList<>();
        f.get("compensations").forEach(c -> ran.add(c.get("state").asText()));
        assertThat(ran).containsExactly("done", "done");
        List<Long> ids = new ArrayList<>();
        f.get("compensations").forEach(c -> ids.add(c.get("id").asLong()));
        assertThat(ids).as("the latest step's undo first").isSortedAccordingTo((a, b) -> Long.compare(b, a));
        assertThat(app.undone).containsSubsequence("undo pack", "undo reserve");
        List<String> to = new ArrayList<>();
        f.get("history").forEach(h -> to.add(h.get("to").asText()));
        assertThat(to).contains("compensating", "failed");
        assertThat(f.get("jobs").size()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void theNodesViewListsTheFleetWithVersionsQueuesAndJobTypes() {
        JsonNode r = read(login(), "/api/nodes");
        assertThat(r.get("this_node").asText()).isEqualTo(app.engine.nodeId());
        JsonNode me = null;
        for (JsonNode n : r.get("items")) {
            if (n.get("node_id").asText().equals(app.engine.nodeId())) {
                me = n;
            }
        }
        assertThat(me).as("the node serving the page is in the fleet table").isNotNull();
        assertThat(me.get("live").asBoolean()).isTrue();
        assertThat(me.get("queues").get("default").asInt()).isEqualTo(2);
        List<String> types = new ArrayList<>();
        me.get("job_types").forEach(t -> types.add(t.asText()));
        assertThat(types).isNotEmpty().isSorted();
        assertThat(r.get("unhandled").isObject()).isTrue();
        assertThat(r.get("leader_tasks").isArray()).as("what the leader tasks last did").isTrue();
        assertThat(send("GET", "/api/nodes", null).status()).as("operators only").isEqualTo(401);
    }

    @Test
    void aQueuesHistoryAddsUpItsFailuresInStepsThatSuitTheSpan() {
        app.failedJob("history-1");
        app.failedJob("history-2");
        dev.converge.EngineInternals.flushHistory(app.engine);
        Session s = login();
        JsonNode hour = read(s, "/api/history?queue=default&span=1h");
        assertThat(hour.get("queue").asText()).isEqualTo("default");
        assertThat(hour.get("step_seconds").asLong()).isEqualTo(60);
        assertThat(hour.get("points")).hasSize(60);
        long failed = 0;
        for (JsonNode p : hour.get("points")) {
            failed += p.get("failed").asLong();
        }
        assertThat(failed).as("at least the two just failed").isGreaterThanOrEqualTo(2);
        List<String> queues = new ArrayList<>();
        hour.get("queues").forEach(q -> queues.add(q.asText()));
        assertThat(queues).contains("default");
        JsonNode week = read(s, "/api/history?span=7d");
        assertThat(week.get("queue").asText()).as("the first queue when none is named").isEqualTo(queues.get(0));
        assertThat(week.get("step_seconds").asLong()).isEqualTo(3600);
        assertThat(week.get("points")).hasSize(168);
        Reply bad = send("GET", "/api/history?span=2y", null, "Cookie", s.cookie());
        assertThat(bad.status()).isEqualTo(422);
        assertThat(bad.body()).contains("1h, 24h, 7d");
        assertThat(send("GET", "/api/history", null).status()).as("operators only").isEqualTo(401);
    }

    @Test
    void recurringJobsArePausedAndResumedWithAReasonAndRefusedClearly() {
        Session s = login();
        JsonNode item = read(s, "/api/recurring").get("items").get(0);
        assertThat(item.get("name").asText()).isEqualTo("shop.nightly-report");
        assertThat(item.get("schedule").asText()).isEqualTo("every 6 h");
        assertThat(item.get("paused_at").isNull()).isTrue();
        String pause = "/api/recurring/shop.nightly-report/pause";
        assertThat(send("POST", pause, "{}", "Cookie", s.cookie(), "X-CSRF-Token", s.csrf()).status())
                .as("no reason").isEqualTo(422);
        assertThat(send("POST", pause, "{\"reason\":\"maintenance\"}", "Cookie", s.cookie()).status())
                .as("no CSRF token").isEqualTo(403);
        Reply missing = send("POST", "/api/recurring/no.such/pause", "{\"reason\":\"x\"}", "Cookie", s.cookie(),
                "X-CSRF-Token", s.csrf());
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.body()).contains("no.such");
        Reply paused = send("POST", pause, "{\"reason\":\"maintenance\"}", "Cookie", s.cookie(), "X-CSRF-Token", s.csrf());
        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.json().get("changed").asBoolean()).isTrue();
        Reply again = send("POST", pause, "{\"reason\":\"maintenance\"}", "Cookie", s.cookie(), "X-CSRF-Token", s.csrf());
        assertThat(again.json().get("changed").asBoolean()).isFalse();
        assertThat(again.json().get("detail").asText()).contains("paused already");
        item = read(s, "/api/recurring").get("items").get(0);
        assertThat(item.get("paused_at").isNull()).isFalse();
        assertThat(item.get("last_action").get("reason").asText()).isEqualTo("maintenance");
        assertThat(item.get("last_action").get("actor").asText()).contains("ops-1");
        Reply resumed = send("POST", "/api/recurring/shop.nightly-report/resume", "{\"reason\":\"done\"}", "Cookie",
                s.cookie(), "X-CSRF-Token", s.csrf());
        assertThat(resumed.json().get("changed").asBoolean()).isTrue();
        assertThat(send("GET", "/api/recurring", null).status()).as("operators only").isEqualTo(401);
    }

    @Test
    void anUncertainEntryIsHighlightedWithWhatTheReaperDoesNext() {
        long entry = app.uncertainEntry("box-uncertain");
        JsonNode e = null;
        for (JsonNode x : read(login(), "/api/ledger").get("items")) {
            if (x.get("id").asLong() == entry) {
                e = x;
            }
        }
        assertThat(e).isNotNull();
        assertThat(e.get("highlight").asBoolean()).isTrue();
        assertThat(e.get("next").asText()).contains("the reaper looks the resource up");
        assertThat(e.has("data")).isFalse();
    }

    @Test
    void anOrphanOfOursIsListedAfterAScanAndDeletedAfterItIsCheckedAgainButAForeignOneNever() {
        Session s = login();
        String ours = app.orphan("box-stray");
        String foreign = app.leaf.plant("box-foreign", "someone-else:42").leafId();
        Reply scanned = send("POST", "/api/orphans/scan", "{}", "Cookie", s.cookie(), "X-CSRF-Token", s.csrf());
        assertThat(scanned.status()).as(scanned.body()).isEqualTo(200);
        JsonNode report = read(s, "/api/orphans");
        List<String> listed = new ArrayList<>();
        report.get("items").forEach(o -> listed.add(o.get("leaf_id").asText()));
        assertThat(listed).contains(ours).doesNotContain(foreign);
        assertThat(report.get("other_count").asInt()).isGreaterThanOrEqualTo(1);

        String kind = app.leaf.kind();
        assertThat(send("POST", "/api/orphans/delete", "{\"kind\":\"" + kind + "\",\"leaf_id\":\"" + ours + "\"}",
                "Cookie", s.cookie()).status()).as("no CSRF token").isEqualTo(403);
        assertThat(send("POST", "/api/orphans/delete", "{\"kind\":\"" + kind + "\",\"leaf_id\":\"" + foreign + "\"}",
                "Cookie", s.cookie(), "X-CSRF-Token", s.csrf()).status()).as("not ours").isEqualTo(422);
        Reply deleted = send("POST", "/api/orphans/delete", "{\"kind\":\"" + kind + "\",\"leaf_id\":\"" + ours + "\"}",
                "Cookie", s.cookie(), "X-CSRF-Token", s.csrf());
        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(deleted.json().get("subject").asText()).isEqualTo("order-box-stray");
        assertThat(app.holdings()).doesNotContainKey("box-stray").containsKey("box-foreign");
    }
}
