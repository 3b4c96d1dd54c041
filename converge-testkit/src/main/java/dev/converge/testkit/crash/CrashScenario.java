package dev.converge.testkit.crash;

import dev.converge.store.Store;
import java.util.List;

/**
 * A flow to explore: build the engine(s) on the given store with the given crash plan, run the
 * flow to its end (redelivery included), and return what a convergence check found wrong
 * (empty when the world converged).
 */
@FunctionalInterface
public interface CrashScenario {
    List<String> run(Store store, CrashInjector plan) throws Exception;
}
