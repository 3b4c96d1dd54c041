package dev.converge.proof.chaos;

import dev.converge.crash.CrashPoint;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * Which worker processes may halt at a crash point, and where. Each ticket names one point; a
 * worker started with a ticket halts there with a high probability the first times it reaches
 * it. A process that ended without using its ticket (killed first, or never reaching the point)
 * gives it back. So a run halts about {@code perPoint} times at every named point — the rare
 * ones (a token spent, a teardown) as surely as the common ones — and never more often than
 * there are tickets, which a small machine could not afford in JVM restarts.
 */
final class CrashTickets {
    /** How likely a ticket holder halts each time it reaches its point: lower where the point is reached often. */
    private static final Map<CrashPoint, Double> RATE = Map.of(
            CrashPoint.AFTER_CLAIM, 0.3,
            CrashPoint.AFTER_LEAF_ANSWER, 0.3,
            CrashPoint.AFTER_LEDGER_WRITE, 0.3,
            CrashPoint.BEFORE_COMPLETE, 0.1,
            CrashPoint.AFTER_TOKEN_USE, 0.6,
            CrashPoint.INSIDE_TEARDOWN, 0.6);

    private final Deque<CrashPoint> left = new ArrayDeque<>();

    CrashTickets(int perPoint) {
        for (int i = 0; i < perPoint; i++) {
            for (CrashPoint p : CrashPoint.values()) {
                left.add(p);
            }
        }
    }

    /** The next ticket, or null when none is left. */
    synchronized CrashPoint take() {
        return left.pollFirst();
    }

    synchronized void giveBack(CrashPoint p) {
        left.addLast(p);
    }

    /** The {@code --crash-rate} spec of a worker holding this ticket. */
    static String spec(CrashPoint p) {
        return HaltingCrashPlan.spec(Map.of(p, RATE.get(p)));
    }
}
