package dev.converge.crash;

import dev.converge.queue.JobContext;

/**
 * Lets a handler announce one of the named crash points in its own code, so the crash-point
 * explorer can crash users' steps (including deliberately naive ones) where the engine's own
 * code would.
 */
public final class CrashSites {
    private CrashSites() {
    }

    public static void reach(JobContext ctx, CrashPoint point) {
        ctx.reached(point);
    }
}
