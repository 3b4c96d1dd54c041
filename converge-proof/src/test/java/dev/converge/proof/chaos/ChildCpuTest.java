package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChildCpuTest {

    private static double seconds(Process p) {
        return p.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(-1.0);
    }

    @Test
    void aChildIsNamedByItsChaosNodeSubcommand() {
        String main = ChaosNode.class.getName();
        assertThat(ChildCpu.role(List.of("-Xmx256m", "-cp", "x.jar", main, "worker", "--standby"))).isEqualTo("workers");
        assertThat(ChildCpu.role(List.of("-cp", "x.jar", main, "server", "--port", "1"))).isEqualTo("API server");
        assertThat(ChildCpu.role(List.of("-cp", "x.jar", main, "leafsim"))).isEqualTo("leaves");
        assertThat(ChildCpu.role(List.of("-cp", "x.jar", main, "mailsim"))).isEqualTo("mail server");
        assertThat(ChildCpu.role(List.of("-XX:ArchiveClassesAtExit=/tmp/a.jsa", "-cp", "x.jar", main, "server")))
                .isEqualTo("class-data archive");
        assertThat(ChildCpu.role(List.of("BEGIN{}"))).isEqualTo("other");
    }

    @Test
    void aChildBornAfterTheMomentCountsItsWholeCpuFromItsBirth() throws Exception {
        if (!Files.isReadable(Path.of("/proc/self/stat"))) {
            return; // the JVM reports no CPU time of other processes here
        }
        try (ChildCpu cpu = ChildCpu.start()) {
            Process idle = new ProcessBuilder("sleep", "30").start();
            Process busy = new ProcessBuilder("awk", "BEGIN{for(;;)s++}").start();
            try {
                Thread.sleep(1_600); // the sampler first sees both a second after they started
                double before = seconds(busy);
                double counted = cpu.cpuSecondsByRole().get("other");
                double after = seconds(busy);

                assertThat(before).as("the busy child's own CPU").isGreaterThan(0.8);
                // all of the busy child's CPU since its birth (the idle one adds next to nothing), not only
                // what it spent after the sampler first saw it
                assertThat(counted).isBetween(before - 0.02, after + 0.1);
                assertThat(cpu.processesByRole()).containsEntry("other", 2);
                assertThat(cpu.cpuSecondsByRole().get("supervisor and client")).isGreaterThanOrEqualTo(0.0);
            } finally {
                busy.destroyForcibly();
                idle.destroyForcibly();
            }
        }
    }

    @Test
    void aChildWithACommandLineLongerThanTheJdkShowsIsStillKnownByItsRole() throws Exception {
        if (!Files.isReadable(Path.of("/proc/self/cmdline"))) {
            return; // the report says n/a
        }
        // as a test run starts its children: the whole class path on the command line, thousands of characters
        String classPath = String.join(":", java.util.Collections.nCopies(400, "/a/long/path/to/some/library-1.0.jar"));
        try (ChildCpu cpu = ChildCpu.start()) {
            // two commands: the shell stays (one command alone it would replace by sleep, command line and all)
            Process worker = new ProcessBuilder("sh", "-c", "sleep 30; exit 0", "java", "-cp", classPath,
                    ChaosNode.class.getName(), "worker", "--standby").start();
            try {
                Thread.sleep(300);
                cpu.cpuSecondsByRole(); // samples now
                assertThat(cpu.processesByRole()).containsEntry("workers", 1);
            } finally {
                worker.destroyForcibly();
            }
        }
    }
}
