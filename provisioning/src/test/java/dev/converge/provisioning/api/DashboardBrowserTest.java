package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.Ledger;
import dev.converge.provisioning.extensions.StandardExtensions;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.tenant.Tenants;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real browser: Debian's chromium, headless, driven by its chromedriver (both
 * from apt; nothing is downloaded). The service runs with sites in several states; the test logs
 * in with the operator token (exchanged once for an HttpOnly session cookie), reads the counts and
 * the flow that needs a person, then watches a new site's state arrive without reloading the page,
 * then deletes an orphan after confirming; another logs in, retries a failed job once, cancels a
 * waiting one, reads the Sites page, and sees every action refused without the cookie or the CSRF
 * token.
 * Screenshots go to
 * {@code target/dashboard-screenshots}.
 */
class DashboardBrowserTest {
    private static final File CHROMIUM = new File("/usr/bin/chromium");
    private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");
    private static final Path SHOTS = Path.of("target", "dashboard-screenshots");

    private ApiHarness api;
    private WebDriver browser;

    @BeforeEach
    void start() {
        boolean present = CHROMIUM.canExecute() && CHROMEDRIVER.canExecute();
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI needs chromium and chromium-driver (.ci/run installs them with apt-get)");
        }
        Assumptions.assumeTrue(present, "chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)");
        api = new ApiHarness(Duration.ofDays(14), ApiOptions.defaults(), StandardExtensions.all());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER)
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (api != null) {
            api.close();
        }
    }

    @Test
    void anOperatorSeesCountsAFlowThatNeedsAPersonAndAStateChangeWithoutReloading() throws IOException {
        Tenants.Created tenant = api.tenant();
        String operator = api.operatorToken();
        long ok = site(tenant, ApiHarness.subdomain("shown"));
        String taken = ApiHarness.subdomain("shown-taken");
        api.service().resources().get(SiteResources.REPOSITORY).create(new CreateRequest(taken, null, null, Map.of()));
        long failed = site(tenant, taken);
        await().atMost(Duration.ofSeconds(30)).until(() -> state(tenant, ok).equals("active") && state(tenant, failed).equals("failed"));
        long attentionFlow = api.count("SELECT provision_flow_id FROM pv_site WHERE id = ?", failed);
        // the state a compensation that could not finish leaves behind
        api.update("UPDATE cv_flow SET state = 'needs_attention', attention = 'the license may exist: check the license"
                + " service' WHERE id = ?", attentionFlow);

        browser.get("http://127.0.0.1:" + api.server.port() + "/ui");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(operator);
        shot("login");
        browser.findElement(By.id("login-submit")).click();

        By attentionCount = By.cssSelector("[data-testid=flows] [data-count=needs_attention]");
        wait.until(ExpectedConditions.presenceOfElementLocated(attentionCount));
        assertThat(text(wait, attentionCount)).isEqualTo("1");
        String attention = text(wait, By.id("attention"));
        assertThat(attention).contains("1 flow(s) need a person").contains("check the license service");
        assertThat(browser.getPageSource()).as("the token is kept, never rendered").doesNotContain(operator);
        shot("overview");

        // a state change arrives without a reload: the marker set on this page survives
        ((JavascriptExecutor) browser).executeScript("window.__sameDocument = 'yes';");
        By succeededFlows = By.cssSelector("[data-testid=flows] [data-count=succeeded]");
        String before = text(wait, succeededFlows);
        long third = site(tenant, ApiHarness.subdomain("arrives"));
        wait.until(d -> !text(wait, succeededFlows).equals(before));
        assertThat(((JavascriptExecutor) browser).executeScript("return window.__sameDocument;")).isEqualTo("yes");
        assertThat(state(tenant, third)).isEqualTo("active");
        shot("overview-updated");

        // the flow's timeline, from the attention link
        click(wait, By.cssSelector("#attention a"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "Flow " + attentionFlow));
        String timeline = text(wait, By.id("view"));
        assertThat(timeline).contains("A person must look at this: the license may exist").contains("compensating")
                .contains("Ledger entries it created");
        shot("flow");

        browser.findElement(By.cssSelector("nav a[href='#flows']")).click();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr.highlight[data-flow='" + attentionFlow + "']")));
        shot("flows");

        // retry the flow that needs a person, from its page, with a reason: recorded as the operator's action
        click(wait, By.cssSelector("tr[data-flow='" + attentionFlow + "'] a"));
        By retryFlow = By.cssSelector("button[data-retry-flow='" + attentionFlow + "']");
        wait.until(ExpectedConditions.elementToBeClickable(retryFlow));
        click(wait, retryFlow);
        assertThat(dialog(wait)).contains("Retry flow " + attentionFlow);
        browser.findElement(By.id("ask-reason")).sendKeys("the license service says it does not exist");
        click(wait, By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "compensates again"));
        await().atMost(Duration.ofSeconds(30)).until(() -> api.count("SELECT COUNT(*) FROM cv_flow WHERE id = ? AND state"
                + " = 'failed'", attentionFlow) == 1);
        assertThat(api.count("SELECT COUNT(*) FROM pv_operator_action WHERE action = 'retry_flow' AND applied AND target = ?",
                "flow " + attentionFlow)).isEqualTo(1);

        // an orphan of ours, deleted after the operator confirms
        var repos = api.service().resources().get(SiteResources.REPOSITORY);
        String stray = repos.create(new CreateRequest(ApiHarness.subdomain("stray"),
                Ledger.defaultTagFor(Site.subjectOf(ok)), null, Map.of())).leafId();
        browser.findElement(By.cssSelector("nav a[href='#orphans']")).click();
        click(wait, By.id("scan-orphans"));
        By delete = By.cssSelector("button[data-orphan='" + stray + "']");
        wait.until(ExpectedConditions.elementToBeClickable(delete));
        click(wait, delete);
        assertThat(dialog(wait)).contains("Delete " + SiteResources.REPOSITORY);
        click(wait, By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Deleted " + SiteResources.REPOSITORY));
        assertThat(api.service().engine().ledger().orphans(repos)).noneMatch(r -> stray.equals(r.leafId()));
        shot("orphans");

        List<LogEntry> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
        assertThat(errors).as("console errors").isEmpty();
    }

    @Test
    void aTenantsTokenIsRefusedAndTheFormComesBack() {
        Tenants.Created tenant = api.tenant();
        browser.get("http://127.0.0.1:" + api.server.port() + "/ui");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(tenant.token());
        browser.findElement(By.id("login-submit")).click();
        wait.until(ExpectedConditions.textToBe(By.id("login-error"), "This token is not an operator token."));
        assertThat(((JavascriptExecutor) browser).executeScript("return sessionStorage.length;")).isEqualTo(0L);
        assertThat(text(wait, By.id("view"))).isEmpty();
    }

    @Test
    void aSessionRetriesAFailedJobOnceCancelsAWaitingOneShowsTheSitesAndEveryActionNeedsCookieAndCsrf() throws IOException {
        Tenants.Created tenant = api.tenant();
        String operator = api.operatorToken();
        String taken = ApiHarness.subdomain("jobs-taken");
        api.service().resources().get(SiteResources.REPOSITORY).create(new CreateRequest(taken, null, null, Map.of()));
        long failedSite = site(tenant, taken);
        long ok = site(tenant, ApiHarness.subdomain("jobs-ok"));
        await().atMost(Duration.ofSeconds(30)).until(() -> state(tenant, ok).equals("active")
                && state(tenant, failedSite).equals("failed")
                && api.count("SELECT COUNT(*) FROM cv_job WHERE kind = 'site.send-welcome'") > 0);
        String welcomeQueue = api.sql(c -> {
            try (var ps = c.prepareStatement("SELECT queue FROM cv_job WHERE kind = 'site.send-welcome'");
                    var rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        });
        // a welcome job that failed for good, standing alone; run again, it finds its site failed and ends at once
        long failedJob = job(welcomeQueue, "failed", failedSite);
        // one that waits in a queue no worker takes, and two more to be refused
        long waitingJob = job("nobodys-queue", "available", failedSite);
        long refusedFailed = job("nobodys-queue", "failed", failedSite);
        long refusedWaiting = job("nobodys-queue", "available", failedSite);

        browser.get("http://127.0.0.1:" + api.server.port() + "/ui");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(operator);
        browser.findElement(By.id("login-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("nav")));
        JavascriptExecutor js = (JavascriptExecutor) browser;
        assertThat(js.executeScript("return sessionStorage.length + localStorage.length;")).as("the token is not kept")
                .isEqualTo(0L);
        assertThat((String) js.executeScript("return document.cookie;")).as("the session cookie is HttpOnly")
                .doesNotContain("converge_session");

        // retry now, confirmed with a reason: the job runs once
        browser.findElement(By.cssSelector("nav a[href='#jobs']")).click();
        By retry = By.cssSelector("button[data-retry='" + failedJob + "']");
        wait.until(ExpectedConditions.elementToBeClickable(retry));
        shot("jobs");
        click(wait, retry);
        assertThat(dialog(wait)).contains("Retry job " + failedJob);
        click(wait, By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("ask-error"), "Say why"));
        assertThat(jobState(failedJob)).as("nothing done without a reason").isEqualTo("failed");
        shot("retry-dialog");
        browser.findElement(By.id("ask-reason")).sendKeys("the leaf is back");
        click(wait, By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "runs again"));
        await().atMost(Duration.ofSeconds(20)).until(() -> jobState(failedJob).equals("succeeded"));
        assertThat(api.count("SELECT attempt FROM cv_job WHERE id = ?", failedJob)).as("run once").isEqualTo(1);

        // cancel a waiting job: asked first; dismissing the question does nothing
        By cancel = By.cssSelector("button[data-cancel='" + waitingJob + "']");
        click(wait, cancel);
        dialog(wait);
        click(wait, By.id("ask-cancel"));
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("ask")));
        assertThat(jobState(waitingJob)).isEqualTo("available");
        click(wait, cancel);
        assertThat(dialog(wait)).contains("Cancel job " + waitingJob);
        browser.findElement(By.id("ask-reason")).sendKeys("not wanted");
        click(wait, By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "is cancelled"));
        assertThat(jobState(waitingJob)).isEqualTo("cancelled");
        assertThat(api.count("SELECT COUNT(*) FROM pv_operator_action WHERE action IN ('retry_job', 'cancel_job') AND applied"
                + " AND target IN (?, ?)", "job " + failedJob, "job " + waitingJob)).as("both recorded").isEqualTo(2);

        // the sites of every tenant, with their failure code, resources and flow
        browser.findElement(By.cssSelector("nav a[href='#sites']")).click();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-testid=sites] [data-count=active]")));
        By okRow = By.cssSelector("tr[data-site='" + ok + "']");
        wait.until(ExpectedConditions.presenceOfElementLocated(okRow));
        String row = text(wait, okRow);
        assertThat(row).contains("active").contains(SiteResources.REPOSITORY).contains("confirmed").contains("provision ");
        assertThat(text(wait, By.cssSelector("tr[data-site='" + ok + "'] [data-subscription]"))).as("its trial")
                .startsWith("trial until ");
        assertThat(text(wait, By.cssSelector("tr[data-site='" + failedSite + "']")))
                .contains("name_taken_at_provider");
        shot("sites");

        List<LogEntry> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
        assertThat(errors).as("console errors").isEmpty();

        // every action, sent without the cookie or without the CSRF token, is refused with a 403 problem
        @SuppressWarnings("unchecked")
        List<String> answers = (List<String>) js.executeAsyncScript(String.join("\n",
                "const done = arguments[arguments.length - 1];",
                "const paths = arguments[0];",
                "const body = (p) => p.endsWith('/delete') ? JSON.stringify({ kind: 'x', leaf_id: 'y' }) : '{\"reason\":\"forged\"}';",
                "const send = (p, creds, headers) => fetch(p, { method: 'POST', credentials: creds, body: body(p),",
                "  headers: Object.assign({ 'Content-Type': 'application/json' }, headers) })",
                "  .then((r) => r.status + ' ' + r.headers.get('Content-Type'));",
                "fetch('/ui/session').then((r) => r.json()).then((s) => Promise.all(paths.flatMap((p) => [",
                "  send(p, 'omit', { 'X-CSRF-Token': s.csrf_token }),",
                "  send(p, 'same-origin', {}),",
                "  send(p, 'same-origin', { 'X-CSRF-Token': 'forged' })]))).then(done, (e) => done([String(e)]));"),
                List.of("/ui/api/jobs/" + refusedFailed + "/retry", "/ui/api/jobs/" + refusedWaiting + "/cancel",
                        "/ui/api/orphans/delete"));
        assertThat(answers).hasSize(9).allMatch(a -> a.startsWith("403 application/problem+json"), "403 problem+json");
        assertThat(jobState(refusedFailed)).isEqualTo("failed");
        assertThat(jobState(refusedWaiting)).isEqualTo("available");

        // logout clears the cookie: the form comes back, and a reload stays logged out
        browser.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        browser.navigate().refresh();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        assertThat(browser.findElement(By.id("nav")).isDisplayed()).isFalse();
    }

    /** Clicks what the page may redraw (it polls) between finding and clicking: found again if it went stale. */
    /** The text of what {@code what} finds, read again when a poll replaced the element between finding and reading. */
    private static String text(WebDriverWait wait, By what) {
        return wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> d.findElement(what).getText());
    }

    private static void click(WebDriverWait wait, By what) {
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> {
                    d.findElement(what).click();
                    return true;
                });
    }

    /** A job of the welcome type for {@code siteId}, standing alone, inserted in {@code state}; its id. */
    private long job(String queue, String state, long siteId) {
        return api.sql(c -> {
            try (var ps = c.prepareStatement("INSERT INTO cv_job (queue, kind, payload, state, run_at, attempt, max_attempts,"
                    + " last_error, created_at, finished_at) VALUES (?, 'site.send-welcome', ?, ?, CURRENT_TIMESTAMP, ?, 1, ?,"
                    + " CURRENT_TIMESTAMP, ?)", new String[] {"id"})) {
                boolean failed = state.equals("failed");
                ps.setString(1, queue);
                ps.setString(2, "{\"siteId\":" + siteId + "}");
                ps.setString(3, state);
                ps.setInt(4, failed ? 1 : 0);
                ps.setString(5, failed ? "java.lang.IllegalStateException: the mail server is down\n\tat x.Y.z(Y.java:1)" : null);
                ps.setObject(6, failed ? java.time.OffsetDateTime.now() : null);
                ps.executeUpdate();
                try (var rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    private String jobState(long id) {
        return api.service().engine().job(id).orElseThrow().state().sql();
    }

    private long site(Tenants.Created tenant, String subdomain) {
        String lead = api.lead(tenant.token());
        ApiClient.Reply r = api.client.postSite(tenant.token(), "browser-" + subdomain, ApiHarness.siteBody(lead, subdomain));
        assertThat(r.status()).as(r.toString()).isEqualTo(202);
        return api.siteDbId(r.json().get("site_id").asText()); // the operator's dashboard shows database ids
    }

    private String state(Tenants.Created tenant, long site) {
        return api.client.get("/v1/sites/" + site, tenant.token()).json().get("state").asText();
    }

    private void shot(String name) throws IOException {
        Files.createDirectories(SHOTS);
        Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    /** The action dialog, once open: its title and text. */
    private static String dialog(WebDriverWait wait) {
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog#ask[open]")));
        return text(wait, By.id("ask-title")) + " " + text(wait, By.id("ask-text"));
    }
}
