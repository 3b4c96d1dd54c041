package dev.converge.store;

import dev.converge.ConvergeException;

/**
 * Enforces R12: never hold a database transaction across a network call. The store counts the
 * transactions each thread has open; code about to call another service asks first, and a
 * thread that holds one fails fast instead of letting a hung leaf pin a pooled connection
 * (and its row locks) for as long as the leaf takes.
 */
public final class TransactionGuard {
    private static final ThreadLocal<int[]> OPEN = ThreadLocal.withInitial(() -> new int[1]);

    private TransactionGuard() {
    }

    static void opened() {
        OPEN.get()[0]++;
    }

    static void closed() {
        OPEN.get()[0]--;
    }

    /** Marks the current thread as inside a transaction the engine did not open (a caller's own). */
    public static AutoCloseable enterExternal() {
        opened();
        return TransactionGuard::closed;
    }

    /** Whether the calling thread is inside a transaction (the engine's or a caller's it was told of). */
    public static boolean transactionOpen() {
        return OPEN.get()[0] > 0;
    }

    /** Throws if the calling thread holds an open transaction. */
    public static void assertNoTransaction(String what) {
        if (transactionOpen()) {
            throw new TransactionHeldAcrossCall(what);
        }
    }

    /** Raised when a network call is attempted while the thread holds a database transaction. */
    public static final class TransactionHeldAcrossCall extends ConvergeException {
        TransactionHeldAcrossCall(String what) {
            super("refusing to call " + what + " while this thread holds an open database transaction: "
                    + "a slow or hung service would hold the connection and its locks (R12); "
                    + "commit first, make the call, then record its answer in a new transaction");
        }
    }
}
