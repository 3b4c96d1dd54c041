package dev.converge.provisioning.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A JSON log line, as the service's logback.xml writes it with {@code CONVERGE_LOG_FORMAT=json}:
 * one object, its {@code timestamp} an ISO-8601 instant (what log shippers parse without a
 * format), the level, logger, thread, message, the delivery's MDC and the whole exception.
 */
class JsonLogLineTest {

    @Test
    void theTimestampIsAnIso8601Instant() throws Exception {
        LoggerContext context = new LoggerContext();
        context.putProperty("CONVERGE_LOG_FORMAT", "json");
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(JsonLogLineTest.class.getResource("/logback.xml"));
        Appender<ch.qos.logback.classic.spi.ILoggingEvent> appender = context.getLogger("ROOT").getAppender("json");
        @SuppressWarnings("unchecked")
        Encoder<ch.qos.logback.classic.spi.ILoggingEvent> encoder =
                ((OutputStreamAppender<ch.qos.logback.classic.spi.ILoggingEvent>) appender).getEncoder();

        LoggingEvent event = new LoggingEvent("x", context.getLogger("dev.converge.test"), Level.WARN, "site {} failed",
                new IllegalStateException("leaf down"), new Object[] {42});
        event.setMDCPropertyMap(Map.of("job_id", "7"));
        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);

        assertThat(line).endsWith("\n").doesNotContain("\n{");
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(json.get("timestamp").isTextual()).as(line).isTrue();
        assertThat(Instant.parse(json.get("timestamp").asText())).isEqualTo(Instant.ofEpochMilli(event.getTimeStamp()));
        assertThat(json.get("level").asText()).isEqualTo("WARN");
        assertThat(json.get("formattedMessage").asText()).isEqualTo("site 42 failed");
        assertThat(json.get("mdc").get("job_id").asText()).isEqualTo("7");
        assertThat(json.get("throwable").toString()).contains("leaf down");
        context.stop();
    }
}
