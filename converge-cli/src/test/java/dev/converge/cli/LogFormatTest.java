package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** --log-format json: one JSON object a line from Logback's JsonEncoder, with a delivery's MDC. */
class LogFormatTest {

    @AfterEach
    void backToTheTestConfiguration() throws Exception {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
        new ContextInitializer(ctx).autoConfig();
    }

    @Test
    void jsonFormatWritesOneObjectPerLineWithTheMdc() throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
            assertThat(Main.commandLine().execute("--log-format", "json", "--version")).isZero();
            MDC.put("job_id", "42");
            MDC.put("job_type", "site.create");
            MDC.put("flow_id", "7");
            LoggerFactory.getLogger("dev.converge.test").warn("site {} needs a look", "s-1");
        } finally {
            MDC.clear();
            System.setErr(err);
        }
        String[] lines = out.toString(StandardCharsets.UTF_8).strip().split("\n");
        JsonNode line = new ObjectMapper().readTree(lines[lines.length - 1]);
        assertThat(line.get("level").asText()).isEqualTo("WARN");
        assertThat(line.get("loggerName").asText()).isEqualTo("dev.converge.test");
        assertThat(line.get("formattedMessage").asText()).isEqualTo("site s-1 needs a look");
        assertThat(line.get("mdc").get("job_id").asText()).isEqualTo("42");
        assertThat(line.get("mdc").get("job_type").asText()).isEqualTo("site.create");
        assertThat(line.get("mdc").get("flow_id").asText()).isEqualTo("7");
    }

    @Test
    void anUnknownFormatIsRefused() {
        assertThatThrownBy(() -> LogFormat.use("xml")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("text or json");
    }
}
