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
 * then SIGKILL). {@link #standby} starts another main class (a benchmark's child) the same way.
 */
public final class ChildJvm {
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
        List<String> options = new ArrayList<>(JVM_OPTIONS);
        options.addAll(jvmOptions);
        return launch(name, log, ChaosNode.class, options, args, env, standby);
    }

    /**
     * {@code main} on this JVM's class path with only the given JVM options (none: the JVM's defaults, as a
     * user runs it), standing by: its standard input stays open for {@link #go()}, and a child that exits
     * when it closes dies with this process, however this one ends.
     */
    public static ChildJvm standby(String name, Path log, Class<?> main, List<String> jvmOptions, List<String> args)
            throws IOException {
        return launch(name, log, main, jvmOptions, args, Map.of(), true);
    }

    private static ChildJvm launch(String name, Path log, Class<?> main, List<String> jvmOptions, List<String> args,
            Map<String, String> env, boolean standby) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
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
    public void go() {
        try {
            stdin.write("go" + System.lineSeparator());
            stdin.flush();
        } catch (IOException e) {
            // it died while standing by: its slot starts another
        }
    }

    /** Closes a standing-by child's standard input: the end of its input is its signal to finish. */
    public void endInput() {
        try {
            stdin.close();
        } catch (IOException e) {
            // it is gone already
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    public String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    public boolean alive() {
        return process.isAlive();
    }

    boolean killedByUs() {
        return killedByUs;
    }

    boolean paused() {
        return paused;
    }

    public Process process() {
        return process;
    }

    /** The log so far (children log little: warnings and a few lines). */
    public String output() {
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
    public void stop(long graceMillis) {
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
