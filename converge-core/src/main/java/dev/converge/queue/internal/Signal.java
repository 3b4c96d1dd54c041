package dev.converge.queue.internal;

/** A one-bit mailbox waiting threads sleep on: raised by a wake-up, consumed by the one waiter it wakes. */
final class Signal {
    private boolean raised;

    /** Wakes one waiter (the raise is a single bit: one waiter consumes it). */
    synchronized void raise() {
        raised = true;
        notify();
    }

    /** Waits up to {@code millis} for a raise; returns whether one came, and consumes it. */
    synchronized boolean await(long millis) throws InterruptedException {
        if (!raised && millis > 0) {
            wait(millis);
        }
        boolean was = raised;
        raised = false;
        return was;
    }
}
