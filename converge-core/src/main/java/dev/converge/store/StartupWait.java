package dev.converge.store;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening a store while its database cannot be reached yet: tried again every second until a
 * deadline, as long as what fails is the connection itself (refused, reset, timed out, or the
 * server still starting or shutting down). Anything else, a missing database or bad credentials
 * among them, fails at once: waiting would not fix it.
 */
final class StartupWait {
    private static final Logger log = LoggerFactory.getLogger(StartupWait.class);
    private static final long PAUSE_MILLIS = 1000;
    private static final long LOG_EVERY_NANOS = Duration.ofSeconds(5).toNanos();

    private final Duration wait;
    private final String where;

    StartupWait(Duration wait, String where) {
        this.wait = wait;
        this.where = where;
    }

    <T> T until(Callable<T> step) throws Exception {
        long start = System.nanoTime();
        long deadline = start + wait.toNanos();
        long loggedAt = start - LOG_EVERY_NANOS;
        for (int attempt = 1; ; attempt++) {
            try {
                T result = step.call();
                if (attempt > 1) {
                    log.info("the database at {} answers after {} s; going on", where,
                            Duration.ofNanos(System.nanoTime() - start).toSeconds());
                }
                return result;
            } catch (Exception e) {
                SQLException unreachable = unreachable(e);
                long now = System.nanoTime();
                if (unreachable == null || now + PAUSE_MILLIS * 1_000_000 > deadline) {
                    throw e;
                }
                if (now - loggedAt >= LOG_EVERY_NANOS) {
                    log.warn("waiting for the database at {} ({}: {}); trying every second for {} s more", where,
                            unreachable.getSQLState(), firstLine(unreachable.getMessage()),
                            Duration.ofNanos(deadline - now).toSeconds());
                    loggedAt = now;
                }
                Thread.sleep(PAUSE_MILLIS);
            }
        }
    }

    /**
     * The cause that says the database cannot be reached (yet), the driver's own rather than the
     * pool's wrapper of it, or null when the failure is something else.
     */
    static SQLException unreachable(Throwable e) {
        SQLException found = null;
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                // 08: connection exceptions; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now
                if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
                    found = s;
                }
            }
        }
        return found;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
