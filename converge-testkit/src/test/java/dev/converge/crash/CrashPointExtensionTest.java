package dev.converge.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.testkit.TestStores;
import dev.converge.testkit.crash.CrashInjector;
import dev.converge.testkit.crash.CrashPointTest;
import dev.converge.store.Store;
import dev.converge.time.EngineClock;
import java.util.List;

/** The JUnit 5 form of the explorer: one invocation per crash point, each required to actually crash. */
class CrashPointExtensionTest {

    @CrashPointTest({CrashPoint.AFTER_LEAF_ANSWER, CrashPoint.AFTER_LEDGER_WRITE, CrashPoint.INSIDE_TEARDOWN})
    void provisioningAndTeardownConvergeWhateverCrashes(CrashInjector injector) throws Exception {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            List<String> violations = new ThreeStepFlow(false).run(store, injector);
            assertThat(violations).isEmpty();
        }
    }
}
