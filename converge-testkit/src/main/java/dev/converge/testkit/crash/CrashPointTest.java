package dev.converge.testkit.crash;

import dev.converge.crash.CrashPoint;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the test once per crash point, with a {@link CrashInjector} parameter that crashes the
 * first attempt reaching that point. The test builds its engine with {@code .crashPlan(injector)},
 * runs its flow to the end and asserts convergence; the extension fails any invocation whose
 * crash point was never reached (a crash that did not happen proves nothing) and prints a table
 * line per point: how often it was reached, and whether the crash happened.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestTemplate
@ExtendWith(CrashPointExtension.class)
public @interface CrashPointTest {
    /** The points to crash at; default all. */
    CrashPoint[] value() default {};
}
