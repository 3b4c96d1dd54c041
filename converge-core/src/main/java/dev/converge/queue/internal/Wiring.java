package dev.converge.queue.internal;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/**
 * How the engine builds the services it hands out ({@code Flows}, {@code Ledger}, {@code Claims},
 * ...), whose constructors are package-private so that an application gets them only from the
 * engine, already wired: a public constructor would make the internal types it takes part of the API.
 */
public final class Wiring {
    private Wiring() {
    }

    /** Calls the one constructor {@code type} declares with {@code args}. */
    public static <T> T construct(Class<T> type, Object... args) {
        Constructor<?>[] constructors = type.getDeclaredConstructors();
        if (constructors.length != 1) {
            throw new IllegalStateException(type.getName() + " must declare exactly one constructor");
        }
        try {
            constructors[0].setAccessible(true);
            return type.cast(constructors[0].newInstance(args));
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("cannot build " + type.getName(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getName(), e);
        }
    }
}
