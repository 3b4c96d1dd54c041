package dev.converge.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import java.net.URL;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * Chooses the log format of the service: {@code text} (the default) or {@code json}, one JSON
 * object per line from Logback's own JsonEncoder, carrying the MDC of job deliveries. The
 * environment variable {@code CONVERGE_LOG_FORMAT} chooses it at start-up; the command line's
 * {@code --log-format} option reconfigures Logback with the same logback.xml.
 */
public final class LogFormat {
    public static final String PROPERTY = "CONVERGE_LOG_FORMAT";

    private LogFormat() {
    }

    /** Reconfigures Logback from the service's logback.xml with the given format. */
    public static void use(String format) {
        String f = format == null ? "text" : format.toLowerCase(Locale.ROOT);
        if (!f.equals("text") && !f.equals("json")) {
            throw new IllegalArgumentException("log format must be text or json, was '" + format + "'");
        }
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return; // another SLF4J backend: it has its own configuration
        }
        URL config = LogFormat.class.getResource("/logback.xml");
        if (config == null) {
            return;
        }
        ctx.reset();
        ctx.putProperty(PROPERTY, f);
        JoranConfigurator joran = new JoranConfigurator();
        joran.setContext(ctx);
        try {
            joran.doConfigure(config);
        } catch (JoranException e) {
            throw new IllegalStateException("could not configure logging: " + e.getMessage(), e);
        }
    }
}
