package dev.converge.proof.bench;

import dev.converge.proof.chaos.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The child processes of a benchmark run, started on this JVM's class path with their logs in a temporary
 * directory of the run. However the run ends they end with it: at {@link #close()}, or at once when the
 * parent is ended by a signal (a parent killed outright closes their standard input, which ends them too).
 * The logs are deleted after a run that {@linkplain #succeeded() succeeded} and kept, and named, otherwise.
 */
final class BenchChildren implements AutoCloseable {
    private final Path logs;
    private final List<ChildJvm> live = new CopyOnWriteArrayList<>();
    private final Thread hook;
    private final Consumer<String> progress;
    private boolean ok;

    BenchChildren(String name, Consumer<String> progress) throws IOException {
        this.logs = Files.createTempDirectory("converge-bench-" + name + "-");
        this.progress = progress;
        this.hook = new Thread(() -> live.forEach(c -> c.process().destroyForcibly()), "bench-" + name + "-children");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts {@code main} as child {@code node}, standing by (its standard input open), logging to the run's directory. */
    ChildJvm start(String node, Class<?> main, List<String> jvmOptions, List<String> args) throws IOException {
        ChildJvm child = ChildJvm.standby(node, logs.resolve(node + ".log"), main, jvmOptions, args);
        live.add(child);
        return child;
    }

    /** Children that have exited: not stopped again at the end. */
    void ended(Collection<ChildJvm> children) {
        live.removeAll(children);
    }

    /** The run succeeded: its logs are not needed. */
    void succeeded() {
        ok = true;
    }

    @Override
    public void close() {
        live.forEach(c -> c.stop(1000));
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down: the hook stops them
        }
        if (ok) {
            ScaleBench.deleteTree(logs);
        } else {
            progress.accept("children's logs kept in " + logs);
        }
    }
}
