package dev.converge.crash;

import dev.converge.ledger.RepetitionSafety;
import java.util.Arrays;

/**
 * One cell of the explorer's matrix: the shape of a flow (what kind of resource it creates, how
 * its token pool is keyed, whether the mail leaf can say if a send happened, whether a plain step
 * registers its own compensation, where the flow fails) and one fault (a crash at the k-th time a
 * point is reached, or a second delivery racing a paused first one there).
 *
 * <p>{@link #key()} is the replayable seed: {@link #parse} gives the same case back.
 */
record MatrixCase(Resource resource, boolean poolBySubject, boolean mailCanTell, boolean plainStep, Failure failure,
        FaultKind fault, CrashPoint point, int occurrence) {

    /** Every combination of declared safety, uniqueness and lookup a resource type can have. */
    enum Resource {
        CONSTRAINT_LOOKUP(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, true, true),
        CONSTRAINT_NO_LOOKUP(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, true, false),
        KEY_LOOKUP(RepetitionSafety.IDEMPOTENT_BY_KEY, false, true),
        KEY_NO_LOOKUP(RepetitionSafety.IDEMPOTENT_BY_KEY, false, false),
        UNSAFE_LOOKUP(RepetitionSafety.UNSAFE, false, true),
        UNSAFE_NO_LOOKUP(RepetitionSafety.UNSAFE, false, false);

        final RepetitionSafety safety;
        final boolean unique;
        final boolean lookup;

        Resource(RepetitionSafety safety, boolean unique, boolean lookup) {
            this.safety = safety;
            this.unique = unique;
            this.lookup = lookup;
        }

        /**
         * Whether a create that may have happened can be left for a person: the leaf cannot be
         * asked, and repeating the create is not made safe by an idempotency key.
         */
        boolean mayNeedAPerson() {
            return !lookup && safety != RepetitionSafety.IDEMPOTENT_BY_KEY;
        }
    }

    /** Where the flow fails, if it does. */
    enum Failure {
        /** Every step succeeds. */
        NONE,
        /** A last step fails for good after the others succeeded: everything must be torn down. */
        LAST_STEP,
        /** A sibling in the resource batch fails for good while the others may still be running. */
        SIBLING
    }

    enum FaultKind {
        /** No fault: the baseline every shape must pass. */
        NONE,
        /** The attempt dies at the point (its lease left to expire), as a killed worker. */
        CRASH,
        /** The attempt stops at the point; its lease expires; another node redelivers; then it wakes up. */
        RACE
    }

    MatrixCase {
        if (fault == FaultKind.NONE) {
            point = null;
            occurrence = 0;
        }
    }

    boolean mayNeedAPerson() {
        return fault != FaultKind.NONE && (resource.mayNeedAPerson() || !mailCanTell);
    }

    boolean reachesWelcome() {
        return failure != Failure.SIBLING;
    }

    String key() {
        return String.join("/", resource.name(), poolBySubject ? "by-subject" : "any-subject",
                mailCanTell ? "mail-tells" : "mail-silent", plainStep ? "plain-step" : "no-plain-step",
                "fail-" + failure.name(),
                fault == FaultKind.NONE ? "NONE" : fault.name() + ":" + point.id() + "#" + occurrence);
    }

    static MatrixCase parse(String key) {
        String[] p = key.trim().split("/");
        if (p.length != 6) {
            throw new IllegalArgumentException("a matrix case has six parts separated by '/': " + key);
        }
        FaultKind kind;
        CrashPoint point = null;
        int occurrence = 0;
        if (p[5].equals("NONE")) {
            kind = FaultKind.NONE;
        } else {
            String[] f = p[5].split("[:#]");
            kind = FaultKind.valueOf(f[0]);
            point = Arrays.stream(CrashPoint.values()).filter(x -> x.id().equals(f[1])).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no crash point " + f[1]));
            occurrence = Integer.parseInt(f[2]);
        }
        return new MatrixCase(Resource.valueOf(p[0]), p[1].equals("by-subject"), p[2].equals("mail-tells"),
                p[3].equals("plain-step"), Failure.valueOf(p[4].substring("fail-".length())), kind, point, occurrence);
    }

    @Override
    public String toString() {
        return key();
    }
}
