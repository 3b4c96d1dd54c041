package dev.converge.queue.internal;

/** A one-bit mailbox a waiting thread sleeps on: raised by a wake-up, consumed by the waiter. */
final class Signal {
    private boolean raised;

    synchronized void raise() {
        raised = true;
        notifyAll();
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
