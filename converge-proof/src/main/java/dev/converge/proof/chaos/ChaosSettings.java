package dev.converge.proof.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * What a chaos run does: how much traffic, how many workers, how hard it attacks, and the
 * timings of the service under attack. Immutable; validated when built, so a bad value fails
 * before any process starts.
 */
public final class ChaosSettings {
    private final int sites;
    private final int workers;
    private final int concurrency;
    private final boolean virtualThreads;
    private final long seed;
    private final Duration killEveryMin;
    private final Duration killEveryMax;
    private final boolean killApi;
    private final int pauseEvery;
    private final boolean pgRestart;
    private final String pgRestartCommand;
    private final double faultRate;
    private final int crashHits;
    private final boolean naive;
    private final boolean rollingDeploy;
    private final Duration trial;
    private final double subscribeShare;
    private final Duration traffic;
    private final double deleteShare;
    private final Duration flowDeadline;
    private final Duration lease;
    private final Duration leafTimeout;
    private final Duration hang;
    private final Duration maxDuration;
    private final String dbUrl;
    private final String dbUser;
    private final boolean siteDb;
    private final Path runDir;
    private final boolean keepDb;

    private ChaosSettings(Builder b) {
        this.sites = b.sites;
        this.workers = b.workers;
        this.concurrency = b.concurrency;
        this.virtualThreads = b.virtualThreads;
        this.seed = b.seed;
        this.killEveryMin = b.killEveryMin;
        this.killEveryMax = b.killEveryMax;
        this.killApi = b.killApi;
        this.pauseEvery = b.pauseEvery;
        this.pgRestart = b.pgRestart;
        this.pgRestartCommand = b.pgRestartCommand;
        this.faultRate = b.faultRate;
        this.crashHits = b.crashHits;
        this.naive = b.naive;
        this.rollingDeploy = b.rollingDeploy;
        this.trial = b.trial;
        this.subscribeShare = b.subscribeShare;
        this.traffic = b.traffic;
        this.deleteShare = b.deleteShare;
        this.flowDeadline = b.flowDeadline;
        this.lease = b.lease;
        this.leafTimeout = b.leafTimeout;
        this.hang = b.hang;
        this.maxDuration = b.maxDuration;
        this.dbUrl = b.dbUrl;
        this.dbUser = b.dbUser;
        this.siteDb = b.siteDb;
        this.runDir = b.runDir;
        this.keepDb = b.keepDb;
    }

    public static Builder newBuilder() {
        return new Builder();
    }

    public int sites() {
        return sites;
    }

    public int workers() {
        return workers;
    }

    public int concurrency() {
        return concurrency;
    }

    /** Whether the workers run their handlers on virtual threads ({@code --virtual-threads}, JDK 21 and later). */
    public boolean virtualThreads() {
        return virtualThreads;
    }

    public long seed() {
        return seed;
    }

    public Duration killEveryMin() {
        return killEveryMin;
    }

    public Duration killEveryMax() {
        return killEveryMax;
    }

    public boolean killApi() {
        return killApi;
    }

    /** Every n-th attack is a SIGSTOP past the lease instead of a SIGKILL; 0 for none. */
    public int pauseEvery() {
        return pauseEvery;
    }

    public boolean pgRestart() {
        return pgRestart;
    }

    /** The command that restarts PostgreSQL, or null to use pg_ctlcluster on the local cluster. */
    public String pgRestartCommand() {
        return pgRestartCommand;
    }

    public double faultRate() {
        return faultRate;
    }

    /** How many halts the run aims for at each named crash point (0: none). */
    public int crashHits() {
        return crashHits;
    }

    public boolean naive() {
        return naive;
    }

    /**
     * Whether the workers are replaced one at a time mid-run by nodes of a next release whose
     * provisioning flow has a step type the previous release does not handle (the API server runs
     * the next release from the start, so the new step's jobs wait before any node knows them).
     */
    public boolean rollingDeploy() {
        return rollingDeploy;
    }

    /** The sites' trial, or null for none: unsubscribed sites then expire during the run. */
    public Duration trial() {
        return trial;
    }

    /** The share of sites the client subscribes once active (with a trial). */
    public double subscribeShare() {
        return subscribeShare;
    }

    /** How long the client spreads its site requests over. */
    public Duration traffic() {
        return traffic;
    }

    public double deleteShare() {
        return deleteShare;
    }

    public Duration flowDeadline() {
        return flowDeadline;
    }

    public Duration lease() {
        return lease;
    }

    public Duration leafTimeout() {
        return leafTimeout;
    }

    public Duration hang() {
        return hang;
    }

    /** The whole run, start to report, never takes longer (quiescence is cut short if it must). */
    public Duration maxDuration() {
        return maxDuration;
    }

    public String dbUrl() {
        return dbUrl;
    }

    public String dbUser() {
        return dbUser;
    }

    public boolean siteDb() {
        return siteDb;
    }

    /** Where logs go; null for a new temporary directory. */
    public Path runDir() {
        return runDir;
    }

    /** Debugging only: leave the scratch database behind. */
    public boolean keepDb() {
        return keepDb;
    }

    public static final class Builder {
        private int sites = 300;
        private int workers = 4;
        private int concurrency = 4;
        private boolean virtualThreads;
        private long seed = 1;
        private Duration killEveryMin = Duration.ofSeconds(2);
        private Duration killEveryMax = Duration.ofSeconds(3);
        private boolean killApi;
        private int pauseEvery = 5;
        private boolean pgRestart;
        private String pgRestartCommand;
        private double faultRate = 0.1;
        private int crashHits = 2;
        private boolean naive;
        private boolean rollingDeploy;
        private Duration trial;
        private double subscribeShare = 0.3;
        private Duration traffic = Duration.ofSeconds(60);
        private double deleteShare = 0.15;
        private Duration flowDeadline = Duration.ofSeconds(60);
        private Duration lease = Duration.ofSeconds(3);
        private Duration leafTimeout = Duration.ofSeconds(1);
        private Duration hang = Duration.ofMillis(2500);
        private Duration maxDuration = Duration.ofSeconds(165);
        private String dbUrl = "jdbc:postgresql://127.0.0.1:5432/postgres";
        private String dbUser = "root";
        private boolean siteDb;
        private Path runDir;
        private boolean keepDb;

        private Builder() {
        }

        public Builder sites(int n) {
            this.sites = n;
            return this;
        }

        public Builder workers(int n) {
            this.workers = n;
            return this;
        }

        public Builder concurrency(int n) {
            this.concurrency = n;
            return this;
        }

        public Builder virtualThreads(boolean on) {
            this.virtualThreads = on;
            return this;
        }

        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** A worker is attacked every {@code min..max} (uniformly drawn each time). */
        public Builder killEvery(Duration min, Duration max) {
            this.killEveryMin = min;
            this.killEveryMax = max;
            return this;
        }

        public Builder killApi(boolean on) {
            this.killApi = on;
            return this;
        }

        public Builder pauseEvery(int n) {
            this.pauseEvery = n;
            return this;
        }

        public Builder pgRestart(boolean on) {
            this.pgRestart = on;
            return this;
        }

        public Builder pgRestartCommand(String command) {
            this.pgRestartCommand = command;
            return this;
        }

        public Builder faultRate(double r) {
            this.faultRate = r;
            return this;
        }

        public Builder crashHits(int n) {
            this.crashHits = n;
            return this;
        }

        /** A trial for every site (null for none): unsubscribed sites expire, after one reminder, during the run. */
        public Builder trial(Duration t) {
            this.trial = t;
            return this;
        }

        public Builder subscribeShare(double share) {
            this.subscribeShare = share;
            return this;
        }

        public Builder rollingDeploy(boolean on) {
            this.rollingDeploy = on;
            return this;
        }

        public Builder naive(boolean on) {
            this.naive = on;
            return this;
        }

        public Builder traffic(Duration d) {
            this.traffic = d;
            return this;
        }

        public Builder deleteShare(double share) {
            this.deleteShare = share;
            return this;
        }

        public Builder flowDeadline(Duration d) {
            this.flowDeadline = d;
            return this;
        }

        public Builder lease(Duration d) {
            this.lease = d;
            return this;
        }

        public Builder leafTimeout(Duration d) {
            this.leafTimeout = d;
            return this;
        }

        public Builder hang(Duration d) {
            this.hang = d;
            return this;
        }

        public Builder maxDuration(Duration d) {
            this.maxDuration = d;
            return this;
        }

        public Builder db(String url, String user) {
            this.dbUrl = url;
            this.dbUser = user;
            return this;
        }

        public Builder siteDb(boolean on) {
            this.siteDb = on;
            return this;
        }

        public Builder runDir(Path dir) {
            this.runDir = dir;
            return this;
        }

        public Builder keepDb(boolean on) {
            this.keepDb = on;
            return this;
        }

        public ChaosSettings build() {
            check(sites >= 1 && sites <= 5000, "--sites must be between 1 and 5000");
            check(workers >= 1 && workers <= 16, "--workers must be between 1 and 16");
            check(concurrency >= 1 && concurrency <= 64, "--concurrency must be between 1 and 64");
            check(!virtualThreads || Runtime.version().feature() >= 21, "--virtual-threads needs JDK 21 or later for the "
                    + "run and its workers; this JVM is " + Runtime.version().feature());
            check(positive(killEveryMin) && positive(killEveryMax) && killEveryMax.compareTo(killEveryMin) >= 0,
                    "--kill-every must be positive, the longer interval after the shorter");
            check(pauseEvery >= 0, "--pause-every must be 0 (none) or more");
            check(faultRate >= 0 && faultRate <= 0.5, "--fault-rate must be between 0 and 0.5");
            check(crashHits >= 0 && crashHits <= 20, "--crash-hits must be between 0 and 20");
            check(deleteShare >= 0 && deleteShare <= 1, "--delete-share must be between 0 and 1");
            check(subscribeShare >= 0 && subscribeShare <= 1, "--subscribe-share must be between 0 and 1");
            check(trial == null || trial.compareTo(Duration.ofSeconds(20)) >= 0,
                    "--trial must be at least 20s: a site must be able to become active and be subscribed first");
            for (Duration d : new Duration[] {traffic, flowDeadline, lease, leafTimeout, hang, maxDuration}) {
                check(positive(d), "durations must be positive");
            }
            check(lease.toMillis() >= 500, "--lease must be at least 500ms");
            check(hang.compareTo(leafTimeout) > 0, "--hang must be longer than --leaf-timeout (else it is no hang)");
            Objects.requireNonNull(dbUser, "dbUser");
            check(dbUrl != null && dbUrl.startsWith("jdbc:postgresql://"), "--db must be a jdbc:postgresql:// URL");
            return new ChaosSettings(this);
        }

        private static boolean positive(Duration d) {
            return d != null && !d.isNegative() && !d.isZero();
        }

        private static void check(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
