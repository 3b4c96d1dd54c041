package dev.converge.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.token.TokenState;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real browser, mounted by an application other than ours ({@link EmbeddedApp}):
 * Debian's chromium, headless, driven by its chromedriver (both from apt; nothing is downloaded).
 * One operator logs in once; each test opens a view while the page polls: a failed job's stack
 * trace, a failed flow's compensations in the order they ran, an uncertain ledger entry
 * highlighted, an orphan appearing once a leaf holds a resource no entry owns, and the
 * application's own page. Every element is read and clicked again if a poll replaced it.
 * Screenshots go to {@code target/dashboard-screenshots}.
 */
class DashboardBrowserTest {
    private static final File CHROMIUM = new File("/usr/bin/chromium");
    private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");
    private static final Path SHOTS = Path.of("target", "dashboard-screenshots");

    private static EmbeddedApp app;
    private static WebDriver browser;
    private static WebDriverWait wait;

    @BeforeAll
    static void start() {
        boolean present = CHROMIUM.canExecute() && CHROMEDRIVER.canExecute();
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI needs chromium and chromium-driver (.ci/run installs them with apt-get)");
        }
        Assumptions.assumeTrue(present, "chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)");
        app = new EmbeddedApp();
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
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        browser.get(app.base());
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(EmbeddedApp.TOKEN);
        browser.findElement(By.id("login-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("nav")));
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (app != null) {
            app.close();
        }
    }

    @AfterEach
    void noConsoleErrors() {
        assertThat(consoleErrors()).as("console errors").isEmpty();
    }

    /** The browser's console errors since the last read (reading them empties the log). */
    private static List<LogEntry> consoleErrors() {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
    }

    @Test
    void aFailedJobShowsItsStackTrace() throws IOException {
        long job = app.failedJob("order-41");
        open("jobs?state=failed");
        By summary = By.cssSelector("tr[data-job='" + job + "'] details summary");
        wait.until(ExpectedConditions.presenceOfElementLocated(summary));
        assertThat(text(summary)).contains("IllegalStateException: the card service is down: order-41");
        click(summary);
        By trace = By.cssSelector("tr[data-job='" + job + "'] details[open] pre");
        wait.until(ExpectedConditions.visibilityOfElementLocated(trace));
        sleep(Duration.ofMillis(2500)); // a poll or two: what the person opened stays open
        assertThat(text(trace)).contains("the card service is down: order-41").contains("at dev.converge.");
        shot("job-stack-trace");
    }

    @Test
    void aJobsPageShowsEveryAttemptWithItsNodeAndWholeTrace() throws IOException {
        long job = app.failedJob("order-43");
        open("jobs?state=failed");
        click(By.cssSelector("tr[data-job='" + job + "'] a[href='#job/" + job + "']"));
        By attempt = By.cssSelector("tr[data-attempt='1']");
        wait.until(ExpectedConditions.presenceOfElementLocated(attempt));
        assertThat(text(attempt)).contains(app.engine.nodeId()).contains("failed")
                .contains("IllegalStateException: the card service is down: order-43");
        assertThat(text(By.cssSelector("[data-testid='job-facts']"))).contains("queue").contains("1 of 1");
        click(By.cssSelector("tr[data-attempt='1'] details summary"));
        By trace = By.cssSelector("tr[data-attempt='1'] details[open] pre");
        wait.until(ExpectedConditions.visibilityOfElementLocated(trace));
        assertThat(text(trace)).contains("at dev.converge.");
        shot("job-page");
    }

    private static final String DARK_BG = "rgb(13, 17, 23)";
    private static final String LIGHT_BG = "rgb(255, 255, 255)";

    /** Dark when the system prefers it, until the person picks with the toggle; the choice outlives a reload. */
    @Test
    void darkModeFollowsTheSystemUntilThePersonChooses() {
        ChromeDriver chrome = (ChromeDriver) browser;
        JavascriptExecutor js = (JavascriptExecutor) browser;
        try {
            chrome.executeCdpCommand("Emulation.setEmulatedMedia", java.util.Map.of("features",
                    List.of(java.util.Map.of("name", "prefers-color-scheme", "value", "dark"))));
            wait.until(d -> DARK_BG.equals(background()));
            assertThat(text(By.id("theme"))).isEqualTo("Light");
            click(By.id("theme"));
            wait.until(d -> LIGHT_BG.equals(background()));
            assertThat(js.executeScript("return localStorage.getItem('converge-theme');")).isEqualTo("light");
            browser.navigate().refresh();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("nav")));
            assertThat(background()).as("the choice outlives a reload").isEqualTo(LIGHT_BG);
            click(By.id("theme"));
            wait.until(d -> DARK_BG.equals(background()));
        } finally {
            js.executeScript("localStorage.removeItem('converge-theme'); delete document.documentElement.dataset.theme;");
            chrome.executeCdpCommand("Emulation.setEmulatedMedia", java.util.Map.of("features",
                    List.of(java.util.Map.of("name", "prefers-color-scheme", "value", "light"))));
        }
        wait.until(d -> LIGHT_BG.equals(background()));
    }

    /** Every view draws in both themes, without a console error; a screenshot of each. */
    @Test
    void everyViewDrawsInLightAndDark() throws IOException {
        long job = app.failedJob("order-44");
        long flow = app.failedFlow("order-45");
        JavascriptExecutor js = (JavascriptExecutor) browser;
        try {
            for (String theme : List.of("light", "dark")) {
                js.executeScript("document.documentElement.dataset.theme = arguments[0];", theme);
                wait.until(d -> (theme.equals("dark") ? DARK_BG : LIGHT_BG).equals(background()));
                for (String view : List.of("overview", "jobs", "job/" + job, "flows", "flow/" + flow, "nodes", "history",
                        "recurring", "ledger", "orphans")) {
                    js.executeScript("document.getElementById('status').textContent = '';");
                    open(view);
                    // the view's own reading, not the one before it: it says it updated, not that it could not
                    wait.until(d -> !text(By.id("status")).isEmpty());
                    assertThat(text(By.id("status"))).as(view).startsWith("Updated");
                    String nav = view.startsWith("job/") ? "jobs" : view.startsWith("flow/") ? "flows" : view;
                    if (view.equals("history")) {
                        wait.until(d -> d.findElements(By.cssSelector("figure[data-chart] canvas")).size() == 4);
                    }
                    wait.until(ExpectedConditions.presenceOfElementLocated(
                            By.cssSelector("nav a[aria-current='page'][href='#" + nav + "']")));
                    wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#view h2")));
                    if (view.contains("/")) {
                        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#view h2"),
                                view.substring(view.indexOf('/') + 1)));
                    }
                    shot(theme + "-" + view.replace('/', '-').replaceAll("-\\d+$", ""));
                }
            }
        } finally {
            js.executeScript("delete document.documentElement.dataset.theme;");
        }
    }

    private static String background() {
        return (String) ((JavascriptExecutor) browser).executeScript(
                "return getComputedStyle(document.body).backgroundColor;");
    }

    /**
     * Failed jobs chosen by the filters (state and type from their choices) are retried at once
     * after the dialog says how many; each runs once more, and one of another type is left alone.
     */
    @Test
    void theFailedJobsAFilterSelectsAreRetriedTogether() throws IOException {
        long other = app.failedJob("bulk-other");
        List.of("bulk-1", "bulk-2", "bulk-3").forEach(app::failedJob);
        app.engine.store().withConnection(c -> {
            try (var st = c.createStatement()) {
                // the other one becomes a type of its own, so that the filter leaves it out
                st.executeUpdate("UPDATE cv_job SET kind = 'shop.refund' WHERE id = " + other);
            }
            return null;
        });
        open("jobs");
        By state = By.cssSelector("form.filters select[name='state']");
        wait.until(ExpectedConditions.presenceOfElementLocated(state));
        new org.openqa.selenium.support.ui.Select(browser.findElement(state)).selectByValue("failed");
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.cssSelector("form.filters select[name='type']")))
                .selectByValue("shop.charge");
        click(By.cssSelector("form.filters button[type='submit']"));
        By bulk = By.id("bulk-retry");
        wait.until(ExpectedConditions.elementToBeClickable(bulk));
        long failedCharges = app.engine.store().withConnection(c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery("SELECT COUNT(*) FROM cv_job WHERE state = 'failed'"
                    + " AND kind = 'shop.charge' AND flow_id IS NULL AND batch_id IS NULL AND chain_id IS NULL")) {
                rs.next();
                return rs.getLong(1);
            }
        });
        click(bulk);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog#ask[open]")));
        assertThat(text(By.id("ask-title"))).isEqualTo("Retry " + failedCharges + " failed job(s) of type shop.charge?");
        browser.findElement(By.id("ask-reason")).sendKeys("the card service is back");
        shot("bulk-retry-dialog");
        click(By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Retried " + failedCharges + " job(s)"));
        for (String order : List.of("bulk-1", "bulk-2", "bulk-3")) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> app.charges.stream().filter(order::equals).count() == 2);
        }
        assertThat(app.charges.stream().filter("bulk-other"::equals).count()).as("run once: not selected").isEqualTo(1);
        assertThat(app.engine.job(other).orElseThrow().state().sql()).as("another type: left alone").isEqualTo("failed");
        assertThat(app.engine.job(other).orElseThrow().attempt()).isEqualTo(1);
    }

    /**
     * Waiting jobs chosen by the filters are cancelled at once after the dialog says how many and
     * takes a reason; a waiting job of another type is left waiting.
     */
    @Test
    void theWaitingJobsAFilterSelectsAreCancelledTogether() throws IOException {
        List<Long> later = new java.util.ArrayList<>();
        for (String order : List.of("later-1", "later-2", "later-3")) {
            later.add(app.engine.enqueue(dev.converge.queue.Job.of(EmbeddedApp.CHARGE, new EmbeddedApp.Order(order))
                    .delay(Duration.ofHours(1))).jobId());
        }
        long other = app.engine.enqueue(dev.converge.queue.Job.of(EmbeddedApp.UNDO, new EmbeddedApp.Order("later-undo"))
                .delay(Duration.ofHours(1))).jobId();
        open("jobs?state=available&type=shop.charge");
        By bulk = By.id("bulk-cancel");
        wait.until(ExpectedConditions.elementToBeClickable(bulk));
        long waiting = app.engine.store().withConnection(c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery(
                    "SELECT COUNT(*) FROM cv_job WHERE state = 'available' AND kind = 'shop.charge'")) {
                rs.next();
                return rs.getLong(1);
            }
        });
        click(bulk);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog#ask[open]")));
        assertThat(text(By.id("ask-title"))).isEqualTo("Cancel " + waiting + " waiting job(s) of type shop.charge?");
        browser.findElement(By.id("ask-reason")).sendKeys("the promotion was called off");
        shot("bulk-cancel-dialog");
        click(By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Cancelled " + waiting + " job(s)"));
        for (long id : later) {
            assertThat(app.engine.job(id).orElseThrow().state().sql()).isEqualTo("cancelled");
        }
        assertThat(app.engine.job(other).orElseThrow().state().sql()).as("another type: left waiting").isEqualTo("available");
    }

    /** More flows than a page: the older ones are a link away, none shown twice, none skipped. */
    @Test
    void theFlowsListPagesOnToTheOldest() {
        for (int i = 0; i < 55; i++) {
            app.engine.flows().start(dev.converge.flow.Flow.of("paging", "p-" + i)
                    .then(dev.converge.queue.Job.of(EmbeddedApp.STEP, new EmbeddedApp.Order("noop"))));
        }
        long total = app.engine.store().withConnection(c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery("SELECT COUNT(*) FROM cv_flow")) {
                rs.next();
                return rs.getLong(1);
            }
        });
        open("flows");
        java.util.Set<String> seen = new java.util.HashSet<>();
        int pages = 0;
        while (true) {
            wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-flow]")));
            pages++;
            List<String> ids = wait.ignoring(StaleElementReferenceException.class).until(d -> d.findElements(
                    By.cssSelector("tr[data-flow]")).stream().map(e -> e.getAttribute("data-flow")).toList());
            for (String id : ids) {
                assertThat(seen.add(id)).as("flow %s shown once", id).isTrue();
            }
            List<WebElement> older = browser.findElements(By.id("older-flows"));
            if (older.isEmpty()) {
                break;
            }
            String next = older.get(0).getAttribute("href");
            click(By.id("older-flows"));
            wait.until(d -> d.getCurrentUrl().equals(next));
            wait.until(d -> d.findElements(By.cssSelector("tr[data-flow]")).stream().noneMatch(e -> {
                try {
                    return ids.contains(e.getAttribute("data-flow"));
                } catch (StaleElementReferenceException stale) {
                    return false;
                }
            }));
        }
        assertThat(pages).isGreaterThan(1);
        assertThat((long) seen.size()).as("every flow, on some page").isEqualTo(total);
    }

    /** An uncertain entry settled as existing, after the dialog asked for its leaf id and a reason. */
    @Test
    void anUncertainEntryIsSettledFromTheLedgerPage() throws IOException {
        long entry = app.uncertainEntry("settle-1");
        open("ledger");
        By settle = By.cssSelector("button[data-settle-entry='" + entry + "']");
        wait.until(ExpectedConditions.elementToBeClickable(settle));
        click(settle);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog#ask[open]")));
        browser.findElement(By.id("ask-reason")).sendKeys("found it at the leaf by hand");
        click(By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("ask-error"), "Give its id at the leaf"));
        browser.findElement(By.id("settle-leaf-id")).sendKeys("box-77");
        shot("settle-entry-dialog");
        click(By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "adopted and confirmed"));
        LedgerEntry e = app.engine.ledger().entry(entry).orElseThrow();
        assertThat(e.state()).isEqualTo(LedgerState.CONFIRMED);
        assertThat(e.leafId()).isEqualTo("box-77");
    }

    /** A token whose use is unknown, settled as not used: available again; settling it twice changes nothing. */
    @Test
    void aTokenOfUnknownUseIsSettledFromTheLedgerPage() {
        long token = app.tokenOfUnknownUse("licenses", "LIC-SECRET-123");
        open("ledger");
        By settle = By.cssSelector("button[data-settle-token='" + token + "']");
        wait.until(ExpectedConditions.elementToBeClickable(settle));
        assertThat(browser.getPageSource()).as("a token's value is never shown").doesNotContain("LIC-SECRET-123");
        click(settle);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog#ask[open]")));
        click(By.cssSelector("#ask input[name='settle-token'][value='unused']"));
        browser.findElement(By.id("ask-reason")).sendKeys("the license service never saw it");
        click(By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "available again"));
        assertThat(app.engine.tokens().get(token).orElseThrow().state()).isEqualTo(TokenState.AVAILABLE);
        wait.until(ExpectedConditions.invisibilityOfElementLocated(settle));
    }

    /** A failed step's page says why its flow cannot be retried now, instead of offering a button that would be refused. */
    @Test
    void aFailedStepSaysHowItsFlowIsRetried() {
        long flow = app.failedFlow("order-46");
        long step = failedStepOf(flow);
        open("job/" + step);
        By note = By.cssSelector("[data-testid='step-of-flow']");
        wait.until(ExpectedConditions.presenceOfElementLocated(note));
        assertThat(text(note)).contains("retried with its flow").contains("flow " + flow).contains("failed and compensated");
    }

    private static long failedStepOf(long flow) {
        return app.store.withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT id FROM cv_job WHERE flow_id = ? AND state = 'failed' ORDER BY id LIMIT 1")) {
                ps.setLong(1, flow);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    /** A job or a flow by its id, from the header: its page, at an address one can share. */
    @Test
    void aJobOrAFlowOpensByItsId() {
        long job = app.failedJob("order-47");
        browser.findElement(By.id("goto-id")).sendKeys(String.valueOf(job));
        click(By.cssSelector("#goto button[type='submit']"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#view h2"), "Job " + job));
        assertThat(browser.getCurrentUrl()).endsWith("#job/" + job);
        long flow = app.failedFlow("order-48");
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("goto-kind"))).selectByValue("flow");
        browser.findElement(By.id("goto-id")).sendKeys(String.valueOf(flow));
        click(By.cssSelector("#goto button[type='submit']"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#view h2"), "Flow " + flow));
        assertThat(browser.getCurrentUrl()).endsWith("#flow/" + flow);
    }

    /** With the leaf down, the overview does not say "0 orphans": it says they are unknown, and the orphans page says why. */
    @Test
    void aLeafThatCannotBeListedIsNotReadAsNoOrphans() {
        app.leafDown = true;
        try {
            open("orphans");
            click(By.id("scan-orphans"));
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "could not be listed"));
            assertThat(text(By.id("view"))).contains("IllegalStateException: connection refused: shop.box is down")
                    .contains("unknown, not none");
            open("overview");
            By incomplete = By.cssSelector("[data-testid='orphans-incomplete']");
            wait.until(ExpectedConditions.presenceOfElementLocated(incomplete));
            assertThat(text(incomplete)).contains("1 of 1 leaves could not be listed");
        } finally {
            app.leafDown = false;
            open("orphans");
            click(By.id("scan-orphans"));
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "listed again"));
        }
    }

    @Test
    void aJobThatIsNotThereSaysWhatHappened() {
        open("job/987654321");
        By missing = By.cssSelector("[data-testid='not-found']");
        wait.until(ExpectedConditions.presenceOfElementLocated(missing));
        assertThat(text(missing)).contains("There is no job 987654321").contains("retention");
        // the browser reports the 404 it was answered; that one, and nothing else, is expected here
        leaveForTheOverview();
        assertThat(consoleErrors()).allSatisfy(e -> assertThat(e.getMessage()).contains("/api/jobs/987654321").contains("404"));
    }

    /** A flow id that is not there: the page says so and why it may be, instead of staying blank. */
    @Test
    void aFlowThatIsNotThereSaysWhatHappened() {
        open("flow/987654321");
        By missing = By.cssSelector("[data-testid='not-found']");
        wait.until(ExpectedConditions.presenceOfElementLocated(missing));
        assertThat(text(missing)).contains("There is no flow 987654321").contains("retention");
        leaveForTheOverview();
        assertThat(consoleErrors()).allSatisfy(e -> assertThat(e.getMessage()).contains("/api/flows/987654321").contains("404"));
    }

    @Test
    void aFlowThatFailedShowsItsCompensationInOrder() throws IOException {
        long flow = app.failedFlow("order-42");
        open("flow/" + flow);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "Compensations, in the order they run"));
        By rows = By.cssSelector("tr[data-compensation]");
        List<String> order = wait.ignoring(StaleElementReferenceException.class).until(d -> {
            List<WebElement> found = d.findElements(rows);
            return found.size() == 2 ? found.stream().map(WebElement::getText).toList() : null;
        });
        assertThat(order.get(0)).startsWith("1 ").contains("shop.undo").contains("done");
        assertThat(order.get(1)).startsWith("2 ").contains("shop.undo").contains("done");
        long first = Long.parseLong(order.get(0).split(" ")[1]);
        long second = Long.parseLong(order.get(1).split(" ")[1]);
        assertThat(first).as("the latest step's undo runs first").isGreaterThan(second);
        assertThat(app.undone).containsSubsequence("undo pack", "undo reserve");
        assertThat(text(By.id("view"))).contains("Flow " + flow + ": order order-42").contains("compensating")
                .contains("no courier takes this parcel");
        wait.ignoring(StaleElementReferenceException.class).until(d -> ((JavascriptExecutor) d).executeScript(
                "arguments[0].scrollIntoView({block: 'center'}); return true;", d.findElement(rows)));
        shot("flow-compensations");
    }

    @Test
    void anUncertainLedgerEntryIsHighlighted() throws IOException {
        long entry = app.uncertainEntry("box-42");
        open("ledger");
        By row = By.cssSelector("tr.highlight[data-entry='" + entry + "']");
        wait.until(ExpectedConditions.presenceOfElementLocated(row));
        assertThat(text(row)).contains("box-42").contains("uncertain").contains("the reaper looks the resource up");
        shot("ledger-uncertain");
    }

    @Test
    void orphansAppearAfterALeafGetsAnUntrackedResource() throws IOException {
        open("orphans");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("scan-orphans")));
        String stray = app.orphan("box-stray-42");
        click(By.id("scan-orphans"));
        By row = By.cssSelector("tr[data-orphan-row='" + stray + "']");
        wait.until(ExpectedConditions.presenceOfElementLocated(row));
        assertThat(text(row)).contains("box-stray-42").contains("order-box-stray-42");
        shot("orphans");
    }

    @Test
    void theNodesViewShowsTheNodeServingThePageAsLive() throws IOException {
        click(By.cssSelector("nav a[href='#nodes']"));
        By row = By.cssSelector("tr[data-node='" + app.engine.nodeId() + "']");
        wait.until(ExpectedConditions.presenceOfElementLocated(row));
        assertThat(text(row)).contains(app.engine.nodeId()).contains("(serving this page)").contains("default \u00d7 2")
                .endsWith("yes");
        // the leader tasks: the recurring task ticks every second, so its round is there at once
        By recurring = By.cssSelector("tr[data-task='recurring']");
        wait.until(ExpectedConditions.presenceOfElementLocated(recurring));
        assertThat(text(recurring)).contains(app.engine.nodeId());
        shot("nodes");
    }

    /**
     * A queue's history is drawn by the charting library: four charts (depth, throughput, failures,
     * times) with something drawn on them, totals that count the jobs that just failed, and the
     * span switched by a link.
     */
    @Test
    void aQueuesHistoryIsChartedOverTheChosenSpan() throws IOException {
        app.failedJob("charted-1");
        app.failedJob("charted-2");
        dev.converge.EngineInternals.flushHistory(app.engine);
        dev.converge.EngineInternals.sampleHistory(app.engine, List.of("default"));
        click(By.cssSelector("nav a[href='#history']"));
        wait.until(d -> d.findElements(By.cssSelector("figure[data-chart] canvas")).size() == 4);
        assertThat(browser.findElements(By.cssSelector("figure[data-chart]"))).extracting(e -> e.getAttribute("data-chart"))
                .containsExactly("depth", "throughput", "failures", "times");
        assertThat(Long.parseLong(text(By.cssSelector("[data-total='failed']")))).isGreaterThanOrEqualTo(2);
        assertThat(text(By.id("history-queue"))).contains("default");
        Long painted = (Long) ((JavascriptExecutor) browser).executeScript(
                "const c = document.querySelector(\"figure[data-chart='failures'] canvas\");"
                + "const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                + "let n = 0; for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++; return n;");
        assertThat(painted).as("pixels the failures chart painted (axes, grid, the line)").isGreaterThan(500L);
        shot("history");
        click(By.cssSelector("a[data-span='24h']"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("strong[data-span='24h']")));
        wait.until(d -> d.findElements(By.cssSelector("figure[data-chart] canvas")).size() == 4);
        assertThat(text(By.cssSelector("[data-testid='history-totals']"))).startsWith("In the last 24h on default");
        assertThat(browser.getCurrentUrl()).contains("#history?queue=default&span=24h");
    }

    /**
     * The recurring jobs page: its schedule in words; paused with a reason (its state and who paused
     * it shown, the button now Resume), run now (a job runs, the notice names it), resumed.
     */
    @Test
    void aRecurringJobIsPausedRunNowAndResumedFromItsPage() throws IOException {
        click(By.cssSelector("nav a[href='#recurring']"));
        By row = By.cssSelector("tr[data-recurring='shop.nightly-report']");
        wait.until(ExpectedConditions.presenceOfElementLocated(row));
        assertThat(text(row)).contains("every 6 h").contains("scheduled");
        click(By.cssSelector("button[data-pause='shop.nightly-report']"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog#ask[open]")));
        assertThat(text(By.id("ask-title"))).isEqualTo("Pause shop.nightly-report?");
        browser.findElement(By.id("ask-reason")).sendKeys("the report store is being moved");
        click(By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "is paused"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("button[data-resume='shop.nightly-report']")));
        assertThat(text(row)).contains("paused").contains("passes (paused)").contains("the report store is being moved")
                .contains("by operator ops-1");
        assertThat(app.engine.recurring().view("shop.nightly-report").orElseThrow().paused()).isTrue();
        shot("recurring-paused");

        int before = app.nightlyRuns.get();
        click(By.cssSelector("button[data-run='shop.nightly-report']"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog#ask[open]")));
        browser.findElement(By.id("ask-reason")).sendKeys("the board wants it today");
        click(By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "runs now as job"));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> app.nightlyRuns.get() == before + 1);

        click(By.cssSelector("button[data-resume='shop.nightly-report']"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog#ask[open]")));
        browser.findElement(By.id("ask-reason")).sendKeys("moved");
        click(By.id("ask-ok"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "runs again from its next slot"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("button[data-pause='shop.nightly-report']")));
        assertThat(app.engine.recurring().view("shop.nightly-report").orElseThrow().paused()).isFalse();
    }

    /** A failed job found by a piece of its error, typed in the filter; a flow by its subject; each a deep link. */
    @Test
    void aJobIsFoundByItsErrorAndAFlowByItsSubject() {
        long wanted = app.failedJob("needle-31");
        long other = app.failedJob("haystack-31");
        open("jobs");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("form.filters input[name='error']")));
        browser.findElement(By.cssSelector("form.filters input[name='error']")).sendKeys("NEEDLE-31");
        click(By.cssSelector("form.filters button[type='submit']"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-job='" + wanted + "']")));
        assertThat(browser.findElements(By.cssSelector("tr[data-job='" + other + "']"))).isEmpty();
        assertThat(browser.getCurrentUrl()).endsWith("#jobs?error=NEEDLE-31");

        long flow = app.failedFlow("order-subject-31");
        open("flows?subject=order-subject-31");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-flow='" + flow + "']")));
        assertThat(browser.findElements(By.cssSelector("tr[data-flow]"))).hasSize(1);
        open("ledger?subject=nobody-31");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "No entry matches."));
    }

    /**
     * Jobs that finished in a time range, chosen in the date-time fields: the newest first, counted,
     * and one that finished before the range left out.
     */
    @Test
    void jobsAreFoundByWhenTheyFinished() {
        long recent = app.failedJob("range-recent-32");
        long old = app.failedJob("range-old-32");
        app.engine.store().withConnection(c -> {
            try (var st = c.createStatement()) {
                st.executeUpdate("UPDATE cv_job SET finished_at = finished_at - INTERVAL '3' HOUR WHERE id = " + old);
            }
            return null;
        });
        open("jobs");
        By after = By.cssSelector("form.filters input[name='finished_after']");
        wait.until(ExpectedConditions.presenceOfElementLocated(after));
        String from = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC).minusHours(1)
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm"));
        // a date-time field is set as a person's choice would set it (typing into one depends on the browser's locale)
        ((org.openqa.selenium.JavascriptExecutor) browser).executeScript("arguments[0].value = arguments[1];",
                browser.findElement(after), from);
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.cssSelector("form.filters select[name='state']")))
                .selectByValue("failed");
        click(By.cssSelector("form.filters button[type='submit']"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-job='" + recent + "']")));
        assertThat(browser.findElements(By.cssSelector("tr[data-job='" + old + "']"))).as("finished before the range").isEmpty();
        assertThat(browser.getCurrentUrl()).contains("finished_after=" + from.replace(":", "%3A"));
        int rows = browser.findElements(By.cssSelector("tr[data-job]")).size();
        assertThat(text(By.cssSelector("[data-testid='count']"))).startsWith("Showing " + rows + " of ");
        open("jobs?finished_after=yesterday");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("status"), "finished_after must be a time"));
        // the refused reading is the browser's only complaint
        leaveForTheOverview();
        assertThat(consoleErrors()).allSatisfy(e -> assertThat(e.getMessage()).contains("finished_after=yesterday").contains("400"));
    }

    /**
     * An hour of a queue as two nodes wrote it, minute by minute (a steady rate, then a burst of
     * failures while the backlog grows and drains): the page's totals are the rows' sums, and the
     * picture is the README's.
     */
    @Test
    void anHourOfAQueueIsSummedOverItsNodes() throws IOException {
        long[] written = app.engine.store().withConnection(c -> {
            try (var st = c.createStatement()) {
                // minute m of the last hour (0 the oldest); failures and backlog between minutes 30 and 40
                st.execute("INSERT INTO cv_queue_history (at_minute, queue, node_id, succeeded, failed, retried, depth, running,"
                        + " w0, w1, w2, w3, w4, w5, w6, w7, w8, r0, r1, r2, r3, r4, r5, r6, r7, r8)"
                        + " SELECT now_m - 59 + m, 'billing', 'node-' || n,"
                        + " 40 + (m * 7 % 13) - CASE WHEN m BETWEEN 30 AND 40 THEN 25 ELSE 0 END,"
                        + " CASE WHEN m BETWEEN 30 AND 40 THEN 6 + m % 4 ELSE m % 9 / 8 END,"
                        + " CASE WHEN m BETWEEN 30 AND 40 THEN 12 ELSE 0 END,"
                        + " CASE WHEN n = 0 THEN CASE WHEN m BETWEEN 30 AND 50 THEN 20 + 30 * (10 - ABS(m - 40)) ELSE 5 + m % 6 END END,"
                        + " CASE WHEN n = 0 THEN 8 END,"
                        + " CASE WHEN m BETWEEN 30 AND 50 THEN 0 ELSE 30 END, 10, 5, CASE WHEN m BETWEEN 30 AND 50 THEN 40 ELSE 0 END,"
                        + " 0, 0, 0, 0, 0, 20, 15, 8, 2, 0, 0, 0, 0, 0"
                        + " FROM (SELECT FLOOR(EXTRACT(EPOCH FROM now()) / 60)::bigint AS now_m) t,"
                        + " generate_series(0, 59) m, generate_series(0, 1) n");
                try (var rs = st.executeQuery("SELECT SUM(succeeded), SUM(failed) FROM cv_queue_history WHERE queue = 'billing'")) {
                    rs.next();
                    return new long[] {rs.getLong(1), rs.getLong(2)};
                }
            }
        });
        open("history?queue=billing&span=1h");
        wait.until(d -> d.findElements(By.cssSelector("figure[data-chart] canvas")).size() == 4);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("history-queue"), "billing"));
        assertThat(Long.parseLong(text(By.cssSelector("[data-total='succeeded']")))).isEqualTo(written[0]);
        assertThat(Long.parseLong(text(By.cssSelector("[data-total='failed']")))).isEqualTo(written[1]);
        shot("history-hour");
    }

    @Test
    void theApplicationsOwnPageIsInTheNavigation() {
        click(By.cssSelector("nav a[href='#hello']"));
        wait.until(ExpectedConditions.textToBe(By.id("hello"), "Hello, operator ops-1"));
        assertThat(browser.findElement(By.cssSelector("nav a[href='#hello']")).getAttribute("aria-current")).isEqualTo("page");
    }

    /**
     * Leaves a view that polls a refused address for the overview and waits for its reading: the
     * refusals logged so far are all there will be (a poll after the test would log one in the next).
     */
    private static void leaveForTheOverview() {
        ((JavascriptExecutor) browser).executeScript("document.getElementById('status').textContent = '';");
        open("overview");
        wait.until(d -> text(By.id("status")).startsWith("Updated"));
    }

    private static void open(String view) {
        ((JavascriptExecutor) browser).executeScript("location.hash = arguments[0];", view);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The text of what {@code what} finds, read again when a poll replaced the element between finding and reading. */
    private static String text(By what) {
        return wait.ignoring(StaleElementReferenceException.class).until(d -> d.findElement(what).getText());
    }

    /** Clicks what the page may redraw (it polls) between finding and clicking: found again if it went stale. */
    private static void click(By what) {
        wait.ignoring(StaleElementReferenceException.class).until(d -> {
            d.findElement(what).click();
            return true;
        });
    }

    private static void shot(String name) throws IOException {
        Files.createDirectories(SHOTS);
        Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }
}
