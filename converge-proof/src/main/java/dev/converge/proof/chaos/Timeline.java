package dev.converge.proof.chaos;

import java.io.PrintStream;

/** The run's progress, one line at a time, stamped with the seconds since it began. */
final class Timeline {
    private final PrintStream out;
    private final long start = System.nanoTime();

    Timeline(PrintStream out) {
        this.out = out;
    }

    synchronized void say(String line) {
        out.printf("  [%6.1fs] %s%n", seconds(), line);
        out.flush();
    }

    double seconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    long millis() {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
