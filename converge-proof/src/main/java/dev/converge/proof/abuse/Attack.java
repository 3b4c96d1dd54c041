package dev.converge.proof.abuse;

/** One way of abusing the API, run beside the legitimate client for a phase. */
interface Attack {
    /** What the report calls it. */
    String name();

    /** Starts attacking on threads of its own; returns at once. */
    void start();

    /** Stops, waits for its threads, and says how many requests or connections it made. */
    long stop() throws InterruptedException;

    /** How its attempts were answered, for the report (e.g. "401: 30, 429: 170"). */
    String answers();
}
