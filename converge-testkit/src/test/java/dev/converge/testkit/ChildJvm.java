package dev.converge.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real second JVM running {@link WorkerProcess} on this test's class path: what it prints is
 * collected line by line, it takes commands on its standard input, and it can be killed with
 * SIGKILL ({@link Process#destroyForcibly()} on Linux), mid-job, with no chance to clean up.
 */
public final class ChildJvm implements AutoCloseable {
    private final String name;
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final PrintStream stdin;

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(this::read, "child-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    public static ChildJvm start(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(WorkerProcess.class.getName());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new ChildJvm(name, p);
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("(output closed: " + e.getMessage() + ")");
        }
    }

    /** Waits for a line that starts with the prefix; fails with everything the child printed. */
    public String awaitLine(String prefix, Duration timeout) {
        return awaitLine(l -> l.startsWith(prefix), prefix, timeout);
    }

    public String awaitLine(Predicate<String> match, String what, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (String l : lines) {
                if (match.test(l)) {
                    return l;
                }
            }
            if (!process.isAlive() && lines.stream().noneMatch(match)) {
                throw new AssertionError(name + " exited (" + process.exitValue() + ") before printing " + what + ":\n"
                        + String.join("\n", lines));
            }
            sleep(10);
        }
        throw new AssertionError(name + " did not print " + what + " within " + timeout + ":\n" + String.join("\n", lines));
    }

    /** Lines the child printed that start with the prefix. */
    public List<String> linesStartingWith(String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).toList();
    }

    public void send(String command) {
        stdin.println(command);
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL: the process dies at once, mid-whatever, with no shutdown hook and no cleanup. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " survived SIGKILL");
        }
    }

    /** Asks the child to stop cleanly, and waits. */
    public int quit(Duration timeout) throws InterruptedException {
        send("QUIT");
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not quit:\n" + String.join("\n", lines));
        }
        return process.exitValue();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
