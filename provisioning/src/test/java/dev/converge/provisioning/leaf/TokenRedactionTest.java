package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;
import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Leaf tokens never reach a log line, an exception (message, cause chain, stack trace) or a
 * config's toString, on success and on every failure path. Everything on the client side is
 * captured at TRACE, including the JDK's own java.net.http loggers (routed to Logback by
 * slf4j-jdk-platform-logging); console appenders are detached meanwhile so the flood does not slow
 * the build. Left out are the simulated leaf's own server events (its threads, and Jetty/Javalin,
 * which in this JVM serve only the simulated leaf and at DEBUG print the token it must receive);
 * the drivers never touch Jetty: their only way out is java.net.http.
 */
class TokenRedactionTest {
    private static final String WRONG_TOKEN = "WRONG_SECRET_token_5a1f";
    private static final List<String> SECRETS = List.of(SimulatedLeaves.GITHOST_TOKEN, SimulatedLeaves.HOSTING_TOKEN,
            SimulatedLeaves.LICENSE_TOKEN, WRONG_TOKEN);
    private static final List<String> LOUD_LOGGERS = List.of(org.slf4j.Logger.ROOT_LOGGER_NAME, "jdk", "java.net",
            "sun.net", "dev.converge");

    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();
    private final Map<String, Level> savedLevels = new HashMap<>();
    private final List<Appender<ILoggingEvent>> quietened = new ArrayList<>();
    private final List<Throwable> thrown = new ArrayList<>();

    @BeforeEach
    void captureEverything() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        captured.setContext(context);
        captured.start();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.iteratorForAppenders().forEachRemaining(quietened::add);
        quietened.forEach(root::detachAppender);
        root.addAppender(captured);
        for (String name : LOUD_LOGGERS) {
            Logger logger = context.getLogger(name);
            savedLevels.put(name, logger.getLevel());
            logger.setLevel(Level.TRACE);
        }
    }

    @AfterEach
    void restoreLevels() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        savedLevels.forEach((name, level) -> context.getLogger(name).setLevel(level));
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAppender(captured);
        quietened.forEach(root::addAppender);
    }

    @Test
    void noTokenInLogsExceptionsOrConfigsOnAnyPath() {
        try (SimulatedLeaves leaves = new SimulatedLeaves()) {
            for (String leaf : LeafSim.LEAVES) {
                exercise(leaves, leaf);
            }
            LicenseDriver wrongToken = new LicenseDriver(new LicenseConfig(leaves.http(LeafSim.LICENSE, WRONG_TOKEN)));
            record(() -> wrongToken.create("wrong.example.com", "t", null));
            record(() -> wrongToken.find("wrong.example.com"));
            record(() -> wrongToken.delete("ABCD-0000-0000-0000"));
            assertNoSecretIn("config", leaves.http(LeafSim.LICENSE, WRONG_TOKEN).toString());
            assertNoSecretIn("config", new GitHostConfig(leaves.http(LeafSim.GITHOST, SimulatedLeaves.GITHOST_TOKEN),
                    "acme", true).toString());
            assertNoSecretIn("config", HostingConfig.of(leaves.http(LeafSim.HOSTING, SimulatedLeaves.HOSTING_TOKEN),
                    "42").toString());
            assertNoSecretIn("config", new LicenseConfig(leaves.http(LeafSim.LICENSE, WRONG_TOKEN)).toString());
        }
        int port = freePortOfAClosedSim();
        LicenseDriver refused = new LicenseDriver(new LicenseConfig(HttpLeafConfig.of(
                "http://127.0.0.1:" + port + "/license", ApiToken.of(SimulatedLeaves.LICENSE_TOKEN))));
        record(() -> refused.create("refused.example.com", "t", null));

        assertThat(thrown).as("the failure paths ran").hasSizeGreaterThanOrEqualTo(3 * 10 + 4);
        thrown.forEach(e -> assertNoSecretIn("exception", stackTrace(e)));
        List<ILoggingEvent> clientSide = captured.list.stream()
                .filter(event -> !event.getThreadName().startsWith("leafsim"))
                .filter(event -> !event.getLoggerName().startsWith("org.eclipse.jetty")
                        && !event.getLoggerName().startsWith("io.javalin"))
                .toList();
        assertThat(clientSide).as("our DEBUG lines were captured, so the capture works")
                .anySatisfy(event -> assertThat(event.getLoggerName()).isEqualTo(LeafHttp.class.getName()));
        assertThat(clientSide).as("the JDK client's own debug log was captured too")
                .anySatisfy(event -> assertThat(event.getLoggerName()).startsWith("jdk.internal.httpclient"));
        clientSide.forEach(event -> assertNoSecretIn(
                "log " + event.getLoggerName() + " on thread " + event.getThreadName(), render(event)));
    }

    @Test
    void theTokenHasNoReadableForm() {
        assertThat(ApiToken.of("s3cr3t-value").toString()).doesNotContain("s3cr3t");
        assertThatThrownBy(() -> ApiToken.of("has space")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("has space");
    }

    @Test
    void driversRefuseToRunWhileTheJdkClientLogsHeaders() {
        assertThatThrownBy(() -> LeafHttp.refuseJdkHeaderLogging("errors,headers"))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> LeafHttp.refuseJdkHeaderLogging("ALL")).isInstanceOf(IllegalStateException.class);
        assertThatCode(() -> LeafHttp.refuseJdkHeaderLogging("errors,requests")).doesNotThrowAnyException();
        assertThatCode(() -> LeafHttp.refuseJdkHeaderLogging(null)).doesNotThrowAnyException();
    }

    private void exercise(SimulatedLeaves leaves, String leaf) {
        LeafDriver driver = leaves.driver(leaf);
        String key = SimulatedLeaves.uniqueKey(leaf);
        record(() -> driver.delete(driver.create(key, "t", "k-" + key).leafId()));
        for (FaultType type : List.of(FaultType.ERROR_BEFORE, FaultType.ERROR_AFTER, FaultType.MALFORMED_AFTER,
                FaultType.RESET_AFTER, FaultType.THROTTLE, FaultType.HANG_AFTER)) {
            leaves.sim.faults().add(FaultRule.of(leaf, "*", type).withHangMs(1_000));
            LeafDriver callee = type == FaultType.HANG_AFTER ? leaves.impatient(leaf) : driver;
            record(() -> callee.create(SimulatedLeaves.uniqueKey(leaf), "t", null));
            if (type == FaultType.ERROR_BEFORE || type == FaultType.MALFORMED_AFTER) {
                record(() -> driver.find(key));
                record(driver::list);
            }
            leaves.sim.faults().clear();
        }
        record(() -> driver.create(key, "t", null));
        record(() -> driver.create(key, "t", null));
    }

    private void record(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            thrown.add(e);
        }
    }

    private static int freePortOfAClosedSim() {
        try (SimulatedLeaves closing = new SimulatedLeaves()) {
            return closing.sim.port();
        }
    }

    private static String stackTrace(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        return e + "\n" + out;
    }

    private static String render(ILoggingEvent event) {
        String throwable = event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy());
        return event.getFormattedMessage() + " " + event.getMDCPropertyMap() + " " + throwable;
    }

    private static void assertNoSecretIn(String where, String text) {
        for (String secret : SECRETS) {
            assertThat(text).as("a token in " + where).doesNotContain(secret);
        }
    }
}
