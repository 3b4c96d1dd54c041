package dev.converge.provisioning.options;

import java.util.concurrent.ThreadFactory;

/**
 * Virtual handler threads for {@code --virtual-threads}: {@code Thread.ofVirtual().name("converge-handler-", 0)
 * .factory()}, reached by reflection, since the service runs on JDK 17 too, where there is none.
 */
final class VirtualThreads {
    private VirtualThreads() {
    }

    /** The factory; an error that says what is missing on a JDK without virtual threads. */
    static ThreadFactory factory() {
        if (Runtime.version().feature() < 21) {
            throw new IllegalArgumentException("--virtual-threads needs JDK 21 or later; this JVM is "
                    + Runtime.version().feature() + " (run the command with a newer java on the PATH, or leave the flag out)");
        }
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            builder = ofVirtual.getMethod("name", String.class, long.class).invoke(builder, "converge-handler-", 0L);
            return (ThreadFactory) ofVirtual.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this JDK " + Runtime.version() + " has no Thread.ofVirtual()", e);
        }
    }
}
