package dev.converge.queue.internal;

import dev.converge.Converge;
import dev.converge.queue.Job;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/**
 * How the engine's own packages reach what the public API keeps to itself. The services the engine
 * hands out ({@code Flows}, {@code Ledger}, {@code Claims}, ...) have package-private constructors,
 * so an application gets them only from the engine, already wired; and {@link Converge} keeps its
 * runtime out of its public methods. A public constructor or accessor would make the internal
 * types it mentions part of the API.
 */
public final class Wiring {
    /** What {@link Converge} lends its own packages; it registers this when its class is initialized. */
    public interface EngineAccess {
        EngineRuntime runtime(Converge engine);

        /** Turns a typed job into its row, failing on an unknown type or a bad payload. */
        NewJob encode(Converge engine, Job<?> job);

        /** Adds a reaction to jobs finishing for good, in their finishing transaction. */
        void finishHook(Converge.Builder builder, FinishHook hook);
    }

    private static volatile EngineAccess engines;

    private Wiring() {
    }

    /** Called once, by {@link Converge}. */
    public static void engineAccess(EngineAccess access) {
        if (engines != null) {
            throw new IllegalStateException("engine access is already registered");
        }
        engines = access;
    }

    public static EngineAccess engines() {
        if (engines == null) {
            try {
                Class.forName(Converge.class.getName(), true, Converge.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return engines;
    }

    public static EngineRuntime runtime(Converge engine) {
        return engines().runtime(engine);
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
