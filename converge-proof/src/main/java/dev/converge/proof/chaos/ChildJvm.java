package dev.converge.proof.chaos;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One incarnation of a child process: this JVM's java binary and class path running
 * {@link ChaosNode} in one role (server, worker, leafsim, mailsim), its output appended to its own
 * log file. It can be SIGKILLed, paused (SIGSTOP) and woken (SIGCONT), or asked to stop (SIGTERM,
 * then SIGKILL).
 */
final class ChildJvm {
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-Xss512k", "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC", "-XX:CICompilerCount=1");

    private final String name;
    private final Process process;
    private final Path log;
    private final Writer stdin;
    private volatile boolean killedByUs;
    private volatile boolean paused;

    private ChildJvm(String name, Process process, Path log, Writer stdin) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stdin = stdin;
    }

    /**
     * Secrets go in {@code env}, never in {@code args}: the command line shows in process listings.
     *
     * @param standby keep its standard input open: a standing-by worker waits for {@link #go()} (and exits
     *                by itself when the supervisor dies and the pipe closes)
     */
    static ChildJvm start(String name, Path log, List<String> args, Map<String, String> env, boolean standby,
            List<String> jvmOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(JVM_OPTIONS);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ChaosNode.class.getName());
        command.addAll(args);
        Files.writeString(log, "# " + String.join(" ", args) + System.lineSeparator());
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!standby) {
            p.getOutputStream().close(); // it reads nothing
            return new ChildJvm(name, p, log, null);
        }
        return new ChildJvm(name, p, log, new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8));
    }

    /** Tells a standing-by worker to start working. */
    void go() {
        try {
            stdin.write("go" + System.lineSeparator());
            stdin.flush();
        } catch (IOException e) {
            // it died while standing by: its slot starts another
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    boolean alive() {
        return process.isAlive();
    }

    boolean killedByUs() {
        return killedByUs;
    }

    boolean paused() {
        return paused;
    }

    Process process() {
        return process;
    }

    /** The log so far (children log little: warnings and a few lines). */
    String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    /** SIGKILL: the process dies at once, mid-whatever, with no shutdown hook and no cleanup. */
    void kill() {
        killedByUs = true;
        process.destroyForcibly();
        await(5);
    }

    void pause() {
        if (signal("STOP")) {
            paused = true;
        }
    }

    void resume() {
        if (paused) {
            signal("CONT");
            paused = false;
        }
    }

    /** SIGTERM (woken first if paused), then SIGKILL if it has not ended within the grace. */
    void stop(long graceMillis) {
        killedByUs = true;
        resume();
        process.destroy();
        try {
            if (!process.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                await(5);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void await(int seconds) {
        try {
            process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean signal(String sig) {
        if (!process.isAlive()) {
            return false;
        }
        try {
            return new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
