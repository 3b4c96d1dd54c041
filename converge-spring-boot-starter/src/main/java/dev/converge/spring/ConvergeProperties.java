package dev.converge.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The {@code converge.*} properties of the Spring Boot starter. */
@ConfigurationProperties(prefix = "converge")
public class ConvergeProperties {

    /** Whether to configure a Converge engine at all. */
    private boolean enabled = true;

    /**
     * Queues this node works, by name, with their concurrency (handler threads). Empty: every queue
     * of a registered handler, with {@code converge.default-concurrency} threads.
     */
    private Map<String, Integer> queues = new LinkedHashMap<>();

    /** Handler threads of a queue not listed under {@code converge.queues}. */
    private int defaultConcurrency = 4;

    /** Whether this node runs jobs; false for a node that only enqueues. */
    private boolean worker = true;

    /** Whether the starter applies the engine's migrations on start (Flyway, own history table cv_schema_history). */
    private boolean migrate = true;

    /**
     * The schema the engine's tables go in, apart from the application's (created by the
     * migration); empty: the connections' own schema. A lower-case SQL name.
     */
    private String schema;

    /** How long a delivery holds its job without a heartbeat. */
    private Duration lease = Duration.ofSeconds(30);

    /** How often held leases are extended (default a third of the lease). */
    private Duration heartbeat;

    /** How long an idle fetcher waits when no wake-up comes. */
    private Duration poll = Duration.ofSeconds(1);

    /** How long running handlers may finish when the application stops, before their jobs are given back. */
    private Duration shutdownGrace = Duration.ofSeconds(10);

    /** Runs the flow watchdog on this node at this interval (only the node holding its claim acts); unset: off. */
    private Duration watchdog;

    /** Runs the ledger and token reaper on this node at this interval; unset: off. */
    private Duration reaper;

    /** Entries left unconfirmed longer than this by ended jobs are resolved by the reaper. */
    private Duration reapOlderThan = Duration.ofMinutes(5);

    /** This node's id in leases and logs (default: host, process id and a random suffix). */
    private String nodeId;

    /**
     * The installation in every resource tag ({@code converge:<installation>:<subject>}); engines
     * sharing a leaf account need different ones. Default: {@code default}.
     */
    private String installation = "default";

    /** The queue the engine's own jobs (compensation, teardown) run on. */
    private String systemQueue = "default";

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, Integer> getQueues() {
        return queues;
    }

    public void setQueues(Map<String, Integer> queues) {
        this.queues = queues;
    }

    public int getDefaultConcurrency() {
        return defaultConcurrency;
    }

    public void setDefaultConcurrency(int defaultConcurrency) {
        this.defaultConcurrency = defaultConcurrency;
    }

    public boolean isWorker() {
        return worker;
    }

    public void setWorker(boolean worker) {
        this.worker = worker;
    }

    public boolean isMigrate() {
        return migrate;
    }

    public void setMigrate(boolean migrate) {
        this.migrate = migrate;
    }

    public String getSchema() {
        return schema;
    }

    public void setSchema(String schema) {
        this.schema = schema == null || schema.isBlank() ? null : schema;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getHeartbeat() {
        return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    public Duration getPoll() {
        return poll;
    }

    public void setPoll(Duration poll) {
        this.poll = poll;
    }

    public Duration getShutdownGrace() {
        return shutdownGrace;
    }

    public void setShutdownGrace(Duration shutdownGrace) {
        this.shutdownGrace = shutdownGrace;
    }

    public Duration getWatchdog() {
        return watchdog;
    }

    public void setWatchdog(Duration watchdog) {
        this.watchdog = watchdog;
    }

    public Duration getReaper() {
        return reaper;
    }

    public void setReaper(Duration reaper) {
        this.reaper = reaper;
    }

    public Duration getReapOlderThan() {
        return reapOlderThan;
    }

    public void setReapOlderThan(Duration reapOlderThan) {
        this.reapOlderThan = reapOlderThan;
    }

    public String getNodeId() {
        return nodeId;
    }

    public String getInstallation() {
        return installation;
    }

    public void setInstallation(String installation) {
        this.installation = installation;
    }

    public void setNodeId(String nodeId) {
        this.nodeId = nodeId;
    }

    public String getSystemQueue() {
        return systemQueue;
    }

    public void setSystemQueue(String systemQueue) {
        this.systemQueue = systemQueue;
    }
}
