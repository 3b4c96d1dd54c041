package dev.converge.flow;

/**
 * The rules every manual action (a person's retry or settlement) follows: it names who acted and
 * says why, so the history can answer both later.
 */
public final class ManualAction {
    public static final int MAX_ACTOR = 200;
    public static final int MAX_REASON = 1000;

    private ManualAction() {
    }

    /** Throws {@link IllegalArgumentException} unless both are given, not blank and not too long. */
    public static void validate(String actor, String reason) {
        if (actor == null || actor.isBlank() || actor.length() > MAX_ACTOR) {
            throw new IllegalArgumentException("who acts is required (1-" + MAX_ACTOR + " characters)");
        }
        if (reason == null || reason.isBlank() || reason.length() > MAX_REASON) {
            throw new IllegalArgumentException("a reason is required (1-" + MAX_REASON + " characters)");
        }
    }
}
