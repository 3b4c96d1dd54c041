package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;
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
        Matcher virtual = Jdks.run(java.get(), VirtualHandlersMain.class, RESULT, "virtual", Integer.toString(HANDLERS));
        Matcher platform = Jdks.run(java.get(), VirtualHandlersMain.class, RESULT, "platform", Integer.toString(HANDLERS));

        assertThat(Integer.parseInt(virtual.group(1))).as("virtual handlers waiting on the leaf at once").isEqualTo(HANDLERS);
        assertThat(Integer.parseInt(virtual.group(2))).as("peak platform threads with virtual handlers")
                .isLessThan(HANDLERS / 2);
        assertThat(Double.parseDouble(virtual.group(3))).as("seconds for the run (the leaf answers at once when all wait)")
                .isLessThan(15);

        assertThat(Integer.parseInt(platform.group(1))).as("platform handlers at once").isEqualTo(HANDLERS);
        assertThat(Integer.parseInt(platform.group(2))).as("peak platform threads with the engine's own threads")
                .isGreaterThanOrEqualTo(HANDLERS);
    }
}
