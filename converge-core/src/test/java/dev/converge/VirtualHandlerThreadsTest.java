package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * 200 handlers of one queue, each waiting on a leaf over HTTP that answers only once all 200 calls are
 * waiting on it: on virtual threads ({@code handlerThreads(Thread.ofVirtual().factory())}, a JDK 21 or later
 * found on this machine, in a JVM of its own) all 200 wait at once on a few dozen platform threads; on the
 * engine's own threads the same run takes a platform thread per handler, which is what the count would
 * catch if the factory were not used.
 */
class VirtualHandlerThreadsTest {
    private static final int HANDLERS = 200;
    private static final Pattern RESULT = Pattern.compile("result running=(\\d+) peak-platform-threads=(\\d+) seconds=([\\d.]+)");

    @Test
    void twoHundredHandlersWaitOnALeafAtOnceWithoutAPlatformThreadEach() throws Exception {
        Optional<Path> java = Jdks.javaOf(21);
        Assumptions.assumeTrue(java.isPresent(), "no JDK 21 or later on this machine (java.home or /usr/lib/jvm)");
        Matcher virtual = run(java.get(), "virtual");
        Matcher platform = run(java.get(), "platform");

        assertThat(Integer.parseInt(virtual.group(1))).as("virtual handlers waiting on the leaf at once").isEqualTo(HANDLERS);
        assertThat(Integer.parseInt(virtual.group(2))).as("peak platform threads with virtual handlers")
                .isLessThan(HANDLERS / 2);
        assertThat(Double.parseDouble(virtual.group(3))).as("seconds for the run (the leaf answers at once when all wait)")
                .isLessThan(15);

        assertThat(Integer.parseInt(platform.group(1))).as("platform handlers at once").isEqualTo(HANDLERS);
        assertThat(Integer.parseInt(platform.group(2))).as("peak platform threads with the engine's own threads")
                .isGreaterThanOrEqualTo(HANDLERS);
    }

    private static Matcher run(Path java, String mode) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), VirtualHandlersMain.class.getName(), mode, Integer.toString(HANDLERS)));
        Path log = Files.createTempFile("virtual-handlers-" + mode, ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String out;
        try {
            boolean ended = p.waitFor(90, TimeUnit.SECONDS);
            out = Files.readString(log, StandardCharsets.UTF_8);
            if (!ended) {
                throw new AssertionError(mode + " run did not end within 90 s:\n" + out);
            }
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(log);
        }
        Matcher m = RESULT.matcher(out);
        if (!m.find()) {
            throw new AssertionError(mode + " run printed no result:\n" + out);
        }
        return m;
    }
}
