package dev.converge.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/**
 * Builds the pool of a store that owns one. Apart from {@link Store} so that HikariCP (an
 * optional dependency) is loaded only by applications that let the store build its pool.
 */
final class HikariPools {
    private HikariPools() {
    }

    static DataSource open(StoreConfig config) {
        HikariConfig hc = new HikariConfig();
        String url = config.url();
        if (url.startsWith("jdbc:h2:") && !url.toUpperCase().contains("LOCK_TIMEOUT")) {
            // H2's default of one second is shorter than a busy batch row can stay locked
            url = url + ";LOCK_TIMEOUT=10000";
        }
        hc.setJdbcUrl(url);
        if (config.username() != null) {
            hc.setUsername(config.username());
        }
        if (config.password() != null) {
            hc.setPassword(config.password());
        }
        hc.setMaximumPoolSize(config.maxPoolSize());
        hc.setMinimumIdle(Math.min(2, config.maxPoolSize()));
        hc.setAutoCommit(config.autoCommit());
        hc.setPoolName(config.poolName());
        hc.setConnectionTimeout(config.connectionTimeout().toMillis());
        // fail at start if the database is not there, but let a running engine ride out outages
        hc.setInitializationFailTimeout(config.connectionTimeout().toMillis());
        return new HikariDataSource(hc);
    }
}
