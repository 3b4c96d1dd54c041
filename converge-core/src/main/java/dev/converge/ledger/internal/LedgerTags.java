package dev.converge.ledger.internal;

/** The tag a resource carries to be recognised as ours: derived from the owning subject. */
public final class LedgerTags {
    private LedgerTags() {
    }

    public static String tagFor(String subject) {
        return "converge:" + subject;
    }
}
