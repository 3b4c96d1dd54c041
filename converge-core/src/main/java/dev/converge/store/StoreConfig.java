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

    @Override
    public String toString() {
        return "StoreConfig{url=" + Dialects.redactUrl(url) + ", user=" + username + ", pool=" + maxPoolSize
                + ", autoCommit=" + autoCommit + ", clock=" + clock + "}";
    }

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
