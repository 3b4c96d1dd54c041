package dev.converge.provisioning.leaf;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.LeafSimConfig;
import dev.converge.leafsim.inventory.InventorySnapshot;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link LeafSim} with one distinct token per leaf and drivers pointed at it: patient ones for
 * ordinary calls (a loaded CI machine must not turn a clean call into a timeout) and impatient
 * ones for hang faults, so those resolve in well under a second.
 *
 * <p>As a test class's {@code @RegisterExtension static} field it is shared by the class's tests,
 * its faults cleared after each test and the simulator stopped after the last.
 */
final class SimulatedLeaves implements AutoCloseable, AfterEachCallback, AfterAllCallback {
    static final String GITHOST_TOKEN = "ghp_SECRET_githost_7f3a9";
    static final String HOSTING_TOKEN = "forge_SECRET_hosting_2b8c1";
    static final String LICENSE_TOKEN = "lic_SECRET_license_9d4e6";
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    static final Duration IMPATIENT_TIMEOUT = Duration.ofMillis(400);
    private static final AtomicInteger UNIQUE = new AtomicInteger();

    final LeafSim sim;
    private final Map<String, LeafDriver> drivers = new ConcurrentHashMap<>();

    SimulatedLeaves() {
        sim = LeafSim.start(LeafSimConfig.builder().token(LeafSim.GITHOST, GITHOST_TOKEN)
                .token(LeafSim.HOSTING, HOSTING_TOKEN).token(LeafSim.LICENSE, LICENSE_TOKEN)
                .defaultHang(Duration.ofSeconds(3)).build());
    }

    GitHostDriver gitHost() {
        return (GitHostDriver) driver(LeafSim.GITHOST);
    }

    HostingDriver hosting() {
        return (HostingDriver) driver(LeafSim.HOSTING);
    }

    LicenseDriver license() {
        return (LicenseDriver) driver(LeafSim.LICENSE);
    }

    LeafDriver driver(String leaf) {
        return driver(leaf, REQUEST_TIMEOUT);
    }

    /** A driver that gives up after {@link #IMPATIENT_TIMEOUT}, for calls that meet a hang. */
    LeafDriver impatient(String leaf) {
        return driver(leaf, IMPATIENT_TIMEOUT);
    }

    /** One driver (and so one HttpClient) per leaf and timeout, as in production. */
    private LeafDriver driver(String leaf, Duration timeout) {
        return drivers.computeIfAbsent(leaf + "/" + timeout, k -> newDriver(leaf, timeout));
    }

    private LeafDriver newDriver(String leaf, Duration timeout) {
        return switch (leaf) {
            case LeafSim.GITHOST -> new GitHostDriver(new GitHostConfig(http(leaf, GITHOST_TOKEN, timeout), "acme", true));
            case LeafSim.HOSTING -> new HostingDriver(HostingConfig.of(http(leaf, HOSTING_TOKEN, timeout), "42"));
            case LeafSim.LICENSE -> new LicenseDriver(new LicenseConfig(http(leaf, LICENSE_TOKEN, timeout)));
            default -> throw new IllegalArgumentException(leaf);
        };
    }

    HttpLeafConfig http(String leaf, String token) {
        return http(leaf, token, REQUEST_TIMEOUT);
    }

    private HttpLeafConfig http(String leaf, String token, Duration timeout) {
        return HttpLeafConfig.of(sim.leafUrl(leaf), ApiToken.of(token)).withTimeouts(Duration.ofSeconds(2), timeout);
    }

    InventorySnapshot inventory(String leaf) {
        return sim.inventory(leaf);
    }

    /** A natural key no other test uses: a repository name or a domain, as the leaf wants. */
    static String uniqueKey(String leaf) {
        int n = UNIQUE.incrementAndGet();
        return LeafSim.GITHOST.equals(leaf) ? "repo-" + n : "site" + n + ".example.com";
    }

    @Override
    public void close() {
        sim.close();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        sim.faults().clear();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }
}
