package dev.converge.provisioning.approval;

/** What presenting an approval token came to: granted exactly once, or refused with the reason. */
public sealed interface Consumption permits Consumption.Granted, Consumption.Refused {

    /** This call, and no other, used the approval. */
    record Granted(long approvalId) implements Consumption {
    }

    record Refused(Reason reason) implements Consumption {
    }

    /** Why an approval was refused; each tells the caller something different to do. */
    enum Reason {
        /** No token was given. */
        MISSING,
        /** No approval of this tenant has this token (or it is for another site or action). */
        UNKNOWN,
        /** It was used already: an approval permits one call. */
        USED,
        /** It expired before it was used. */
        EXPIRED
    }
}
