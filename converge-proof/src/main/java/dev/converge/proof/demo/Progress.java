package dev.converge.proof.demo;

import java.io.PrintStream;

/** One line of progress at a time, stamped with the seconds since the run began. */
final class Progress {
    private final PrintStream out;
    private final long start = System.nanoTime();

    Progress(PrintStream out) {
        this.out = out;
    }

    void say(String format, Object... args) {
        out.printf("  [%5.1fs] %s%n", seconds(), String.format(format, args));
        out.flush();
    }

    double seconds() {
        return (System.nanoTime() - start) / 1e9;
    }
}
