package dev.converge.store;

import dev.converge.store.internal.Dialects;
import dev.converge.time.EngineClock;
import java.time.Duration;
import java.util.Objects;

/**
 * How to open a {@link Store}. Immutable; validated when built, so a bad value fails at start
 * rather than being silently corrected later.
 */
public final class StoreConfig {
    private final String url;
    private final String username;
    private final String password;
    private final int maxPoolSize;
    private final boolean autoCommit;
    private final boolean migrate;
    private final EngineClock clock;
    private final Duration connectionTimeout;
    private final String poolName;
    private final String schema;
    private final Duration startupWait;

    private StoreConfig(Builder b) {
        this.url = b.url;
        this.username = b.username;
        this.password = b.password;
        this.maxPoolSize = b.maxPoolSize;
        this.autoCommit = b.autoCommit;
        this.migrate = b.migrate;
        this.clock = b.clock;
        this.connectionTimeout = b.connectionTimeout;
        this.poolName = b.poolName;
        this.schema = b.schema;
        this.startupWait = b.startupWait;
    }

    /** A builder of a store configuration: a JDBC URL and credentials, the pool's size and timeouts. */
    public static Builder newBuilder() {
        return new Builder();
    }

    /** An embedded H2 database in the given file (without the .mv.db suffix). */
    public static Builder h2File(String path) {
        return newBuilder().url("jdbc:h2:file:" + path);
    }

    /** A PostgreSQL database. */
    public static Builder postgres(String url) {
        return newBuilder().url(url);
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.url = url;
        b.username = username;
        b.password = password;
        b.maxPoolSize = maxPoolSize;
        b.autoCommit = autoCommit;
        b.migrate = migrate;
        b.clock = clock;
        b.connectionTimeout = connectionTimeout;
        b.poolName = poolName;
        b.schema = schema;
        b.startupWait = startupWait;
        return b;
    }

    public String url() {
        return url;
    }

    public String username() {
        return username;
    }

    public String password() {
        return password;
    }

    public int maxPoolSize() {
        return maxPoolSize;
    }

    public boolean autoCommit() {
        return autoCommit;
    }

    public boolean migrate() {
        return migrate;
    }

    public EngineClock clock() {
        return clock;
    }

    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    public String poolName() {
        return poolName;
    }

    /** The schema the engine's tables are in, or null for the connections' own (see {@link Builder#schema}). */
    public String schema() {
        return schema;
    }

    /** How long {@link Store#open} waits for a database that cannot be reached yet (see {@link Builder#startupWait}). */
    public Duration startupWait() {
        return startupWait;
    }

    @Override
    public String toString() {
        return "StoreConfig{url=" + Dialects.redactUrl(url) + ", user=" + username + ", pool=" + maxPoolSize
                + ", autoCommit=" + autoCommit + ", clock=" + clock + (schema == null ? "" : ", schema=" + schema) + "}";
    }

    /** The default of {@link Builder#startupWait}, in seconds. */
    public static final int DEFAULT_STARTUP_WAIT_SECONDS = 60;
    private static final Duration DEFAULT_STARTUP_WAIT = Duration.ofSeconds(DEFAULT_STARTUP_WAIT_SECONDS);

    private static final java.util.regex.Pattern SCHEMA = java.util.regex.Pattern.compile("[a-z][a-z0-9_]{0,62}");

    /** Builds a {@link StoreConfig}; {@link #build()} checks the URL names a supported database. */
    public static final class Builder {
        private String url;
        private String username;
        private String password;
        private int maxPoolSize = 10;
        private boolean autoCommit = true;
        private boolean migrate = true;
        private EngineClock clock = EngineClock.database();
        private Duration connectionTimeout = Duration.ofSeconds(5);
        private String poolName = "converge";
        private String schema;
        private Duration startupWait = DEFAULT_STARTUP_WAIT;

        private Builder() {
        }

        public Builder url(String url) {
            this.url = url;
            return this;
        }

        public Builder username(String username) {
            this.username = username;
            return this;
        }

        public Builder password(String password) {
            this.password = password;
            return this;
        }

        public Builder maxPoolSize(int maxPoolSize) {
            this.maxPoolSize = maxPoolSize;
            return this;
        }

        /**
         * The pool's auto-commit default. The store commits its own units of work either way;
         * the contract suite runs with both.
         */
        public Builder autoCommit(boolean autoCommit) {
            this.autoCommit = autoCommit;
            return this;
        }

        /** Whether opening the store applies pending migrations (default true). */
        public Builder migrate(boolean migrate) {
            this.migrate = migrate;
            return this;
        }

        public Builder clock(EngineClock clock) {
            this.clock = clock;
            return this;
        }

        public Builder connectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
            return this;
        }

        public Builder poolName(String poolName) {
            this.poolName = poolName;
            return this;
        }

        /**
         * The schema the engine's tables go in, apart from the application's (default: none, the
         * tables go where the connections' own schema is, {@code public} on PostgreSQL). Migrating
         * creates it; every statement of the engine names it, so an application's connection with
         * another {@code search_path} still enlists the engine's enqueue in its transaction. A
         * lower-case SQL name: a letter, then letters, digits or {@code _}, at most 63.
         */
        public Builder schema(String schema) {
            if (schema != null && !SCHEMA.matcher(schema).matches()) {
                throw new IllegalArgumentException("schema must be a lower-case SQL name (a letter, then letters, digits"
                        + " or '_', at most 63), was '" + schema + "'");
            }
            this.schema = schema;
            return this;
        }

        /**
         * How long opening the store waits for a database it cannot reach yet (refused, or still
         * starting up), trying again every second and logging what it waits for, before it fails:
         * a node started while the database restarts comes up with it instead of exiting. A
         * database that answers with a refusal of its own (no such database, bad credentials) fails
         * at once. Default {@value #DEFAULT_STARTUP_WAIT_SECONDS} s; zero fails on the first try.
         */
        public Builder startupWait(Duration wait) {
            if (wait == null || wait.isNegative() || wait.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("startupWait must be between 0 and 1 hour, was " + wait);
            }
            this.startupWait = wait;
            return this;
        }

        public StoreConfig build() {
            if (url == null || url.isBlank()) {
                throw new IllegalArgumentException("store url is required");
            }
            Dialects.forUrl(url); // rejects unsupported databases now, not at first use
            if (maxPoolSize < 1 || maxPoolSize > 1000) {
                throw new IllegalArgumentException("maxPoolSize must be between 1 and 1000, was " + maxPoolSize);
            }
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(poolName, "poolName");
            if (connectionTimeout == null || connectionTimeout.toMillis() < 250) {
                throw new IllegalArgumentException("connectionTimeout must be at least 250ms");
            }
            return new StoreConfig(this);
        }
    }
}
