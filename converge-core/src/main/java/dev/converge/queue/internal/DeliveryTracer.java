package dev.converge.queue.internal;


/** Opens a span (or any scope) around each delivery's handler, on the worker thread that runs it. */
public interface DeliveryTracer {
    /** Called just before the handler runs; the returned span is ended on the same thread after it returns or throws. */
    Span start(LeasedJob job);

    interface Span {
        /** {@code error} is what the handler threw, or null. */
        void end(Throwable error);
    }
}
