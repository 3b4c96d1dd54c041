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
        // no connection is required to build the pool: Store.open waits for the database itself, telling a
        // database that is not there yet (it waits) from one that refuses (it fails), then a running
        // engine rides out outages
        hc.setInitializationFailTimeout(-1);
        return new HikariDataSource(hc);
    }
}
